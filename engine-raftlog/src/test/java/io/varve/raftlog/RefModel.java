package io.varve.raftlog;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The reference model the engine is checked against: per group a map index -> bytes and a key/value map,
 * with the semantics documented on {@link LogBatch}, written as plainly as possible.
 */
final class RefModel {
    static final class Group {
        final TreeMap<Long, byte[]> entries = new TreeMap<>();
        final TreeMap<String, byte[]> state = new TreeMap<>();

        boolean isEmpty() {
            return entries.isEmpty() && state.isEmpty();
        }

        Group copy() {
            Group g = new Group();
            g.entries.putAll(entries);
            g.state.putAll(state);
            return g;
        }
    }

    final TreeMap<Long, Group> groups = new TreeMap<>();

    static String key(byte[] k) {
        return HexFormat.of().formatHex(k);
    }

    RefModel copy() {
        RefModel m = new RefModel();
        groups.forEach((g, s) -> m.groups.put(g, s.copy()));
        return m;
    }

    /** Applies a batch atomically; throws IllegalArgumentException (model unchanged) if it leaves a gap. */
    void apply(List<Op> batch) {
        RefModel next = copy();
        for (Op op : batch) {
            next.applyOne(op);
        }
        groups.clear();
        groups.putAll(next.groups);
    }

    boolean accepts(List<Op> batch) {
        try {
            copy().apply(batch);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void applyOne(Op op) {
        Group g = groups.get(op.group());
        switch (op) {
            case Op.Append a -> {
                if (a.entries().isEmpty()) {
                    return;
                }
                if (g == null) {
                    g = new Group();
                    groups.put(a.group(), g);
                }
                if (!g.entries.isEmpty() && a.first() > g.entries.lastKey() + 1) {
                    throw new IllegalArgumentException("gap");
                }
                g.entries.tailMap(a.first(), true).clear();
                if (!g.entries.isEmpty() && a.first() <= g.entries.firstKey()) {
                    g.entries.clear();
                }
                for (int i = 0; i < a.entries().size(); i++) {
                    g.entries.put(a.first() + i, a.entries().get(i));
                }
            }
            case Op.Put p -> {
                if (g == null) {
                    g = new Group();
                    groups.put(p.group(), g);
                }
                g.state.put(key(p.key()), p.value().clone());
            }
            case Op.Delete d -> {
                if (g != null) {
                    g.state.remove(key(d.key()));
                }
            }
            case Op.Compact c -> {
                if (g != null) {
                    g.entries.headMap(c.index(), false).clear();
                }
            }
            case Op.Clean c -> groups.remove(c.group());
        }
        if (g != null && g.isEmpty()) {
            groups.remove(op.group());
        }
    }

    long firstIndex(long group) {
        Group g = groups.get(group);
        return g == null || g.entries.isEmpty() ? -1 : g.entries.firstKey();
    }

    long lastIndex(long group) {
        Group g = groups.get(group);
        return g == null || g.entries.isEmpty() ? -1 : g.entries.lastKey();
    }

    /** Reads everything the engine has, given the universe of keys the test uses. */
    static RefModel readFrom(RaftLogEngine engine, List<byte[]> keys) throws Exception {
        RefModel m = new RefModel();
        for (long group : engine.groups()) {
            Group g = new Group();
            if (engine.firstIndex(group).isPresent()) {
                long first = engine.firstIndex(group).getAsLong();
                long last = engine.lastIndex(group).getAsLong();
                List<byte[]> all = engine.entries(group, first, last + 1, Long.MAX_VALUE);
                for (int i = 0; i < all.size(); i++) {
                    g.entries.put(first + i, all.get(i));
                }
            }
            for (byte[] k : keys) {
                byte[] v = engine.get(group, k);
                if (v != null) {
                    g.state.put(key(k), v);
                }
            }
            m.groups.put(group, g);
        }
        return m;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RefModel other) || !groups.keySet().equals(other.groups.keySet())) {
            return false;
        }
        for (Map.Entry<Long, Group> e : groups.entrySet()) {
            Group a = e.getValue();
            Group b = other.groups.get(e.getKey());
            if (!sameBytes(a.entries, b.entries) || !sameBytes(a.state, b.state)) {
                return false;
            }
        }
        return true;
    }

    private static <K> boolean sameBytes(Map<K, byte[]> a, Map<K, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<K, byte[]> e : a.entrySet()) {
            if (!Arrays.equals(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return Objects.hash(groups.keySet());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        groups.forEach((g, s) -> sb.append(g).append(": entries ")
                .append(s.entries.isEmpty() ? "[]" : "[" + s.entries.firstKey() + ".." + s.entries.lastKey() + "]")
                .append(" state ").append(s.state.keySet()).append("; "));
        return sb.append("}").toString();
    }
}
