package io.varve.stress.raftlog;

import io.varve.raftlog.RaftLogEngine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The oracle's view of a raft log: per group, the version of every entry index and of every key. Applying
 * operations follows the engine's rules (an append replaces everything from its first index, a compaction
 * drops everything below its index). {@link #readFrom} builds the same view from an engine, checking each
 * entry's and value's bytes against the version they claim, so comparing two models compares bytes.
 */
public final class LogModel {
    private final Map<Long, TreeMap<Long, Long>> entries = new HashMap<>();
    private final Map<Long, Map<String, Long>> values = new HashMap<>();

    public LogModel copy() {
        LogModel m = new LogModel();
        entries.forEach((g, e) -> m.entries.put(g, new TreeMap<>(e)));
        values.forEach((g, v) -> m.values.put(g, new HashMap<>(v)));
        return m;
    }

    public void apply(List<LogOp> batch) {
        for (LogOp op : batch) {
            switch (op) {
                case LogOp.Append a -> {
                    TreeMap<Long, Long> e = entries.computeIfAbsent(a.group(), g -> new TreeMap<>());
                    e.tailMap(a.first(), true).clear();
                    for (int i = 0; i < a.count(); i++) {
                        e.put(a.first() + i, a.version());
                    }
                }
                case LogOp.Compact c -> {
                    TreeMap<Long, Long> e = entries.get(c.group());
                    if (e != null) {
                        e.headMap(c.index(), false).clear();
                    }
                }
                case LogOp.Put p -> values.computeIfAbsent(p.group(), g -> new HashMap<>()).put(p.key(), p.version());
                case LogOp.Delete d -> {
                    Map<String, Long> v = values.get(d.group());
                    if (v != null) {
                        v.remove(d.key());
                    }
                }
            }
        }
    }

    public long lastIndex(long group) {
        TreeMap<Long, Long> e = entries.get(group);
        return e == null || e.isEmpty() ? -1 : e.lastKey();
    }

    public long firstIndex(long group) {
        TreeMap<Long, Long> e = entries.get(group);
        return e == null || e.isEmpty() ? -1 : e.firstKey();
    }

    /**
     * Reads every group of {@code engine}. An entry or value whose bytes are not exactly those of the version
     * they claim is a wrong read: {@link WrongDataException}.
     */
    public static LogModel readFrom(RaftLogEngine engine) throws Exception {
        LogModel m = new LogModel();
        for (long group : engine.groups()) {
            if (engine.firstIndex(group).isPresent()) {
                long first = engine.firstIndex(group).getAsLong();
                long last = engine.lastIndex(group).getAsLong();
                List<byte[]> all = engine.entries(group, first, last + 1, Long.MAX_VALUE);
                if (all.size() != last - first + 1) {
                    throw new WrongDataException("group " + group + " has indexes " + first + ".." + last
                            + " but " + all.size() + " entries were read");
                }
                TreeMap<Long, Long> e = new TreeMap<>();
                for (int i = 0; i < all.size(); i++) {
                    long version = LogOp.entryVersion(group, first + i, all.get(i));
                    if (version < 0) {
                        throw new WrongDataException("group " + group + " index " + (first + i)
                                + ": bytes are no entry ever written there");
                    }
                    e.put(first + i, version);
                }
                m.entries.put(group, e);
            }
            for (String key : LogOp.KEYS) {
                byte[] v = engine.get(group, LogOp.key(key));
                if (v != null) {
                    long version = LogOp.valueVersion(group, key, v);
                    if (version < 0) {
                        throw new WrongDataException("group " + group + " key " + key + ": bytes are no value "
                                + "ever written there");
                    }
                    m.values.computeIfAbsent(group, g -> new HashMap<>()).put(key, version);
                }
            }
        }
        return m;
    }

    /** Bytes read that no write ever produced at that place. */
    public static final class WrongDataException extends Exception {
        public WrongDataException(String message) {
            super(message);
        }
    }

    /** Groups whose state differs, for a failure message; empty if equal. */
    public List<String> differences(LogModel other) {
        List<String> out = new ArrayList<>();
        TreeSet<Long> groups = new TreeSet<>();
        groups.addAll(nonEmptyGroups());
        groups.addAll(other.nonEmptyGroups());
        for (long g : groups) {
            TreeMap<Long, Long> a = entries.getOrDefault(g, new TreeMap<>());
            TreeMap<Long, Long> b = other.entries.getOrDefault(g, new TreeMap<>());
            if (!a.equals(b)) {
                out.add("group " + g + " entries " + range(a) + " vs " + range(b));
            }
            Map<String, Long> va = values.getOrDefault(g, Map.of());
            Map<String, Long> vb = other.values.getOrDefault(g, Map.of());
            if (!va.equals(vb)) {
                out.add("group " + g + " values " + va + " vs " + vb);
            }
        }
        return out;
    }

    private static String range(TreeMap<Long, Long> e) {
        return e.isEmpty() ? "[]" : "[" + e.firstKey() + ".." + e.lastKey() + " (" + e.size() + ")]";
    }

    private TreeSet<Long> nonEmptyGroups() {
        TreeSet<Long> groups = new TreeSet<>();
        entries.forEach((g, e) -> {
            if (!e.isEmpty()) {
                groups.add(g);
            }
        });
        values.forEach((g, v) -> {
            if (!v.isEmpty()) {
                groups.add(g);
            }
        });
        return groups;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogModel other && differences(other).isEmpty();
    }

    @Override
    public int hashCode() {
        return Objects.hash(nonEmptyGroups());
    }
}
