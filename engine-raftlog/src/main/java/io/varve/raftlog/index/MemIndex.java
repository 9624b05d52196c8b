package io.varve.raftlog.index;

import io.varve.raftlog.format.BatchItem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The in-memory index of all groups: where every live entry is and every group's key/values.
 *
 * <p>Groups are spread over {@value #SHARD_COUNT} shards, each a hash map under its own read/write lock, so
 * readers of different groups do not contend and a reader never waits for a writer of another shard.
 * Critical sections only touch memory: readers copy locations out and do their file I/O after releasing the
 * lock, so a slow disk never blocks the write leader applying a batch.
 *
 * <p>Invariants: entry indexes of a group are contiguous; {@link Location#PLACEHOLDER} appears only while
 * recovery replays (and is gone after {@link #finishReplay}); a group with no entry and no key is removed.
 * Mutations come from one thread at a time (the write leader, recovery, or purge relocating copies), but
 * the shard locks make concurrent mutation safe too.
 */
public final class MemIndex {
    public static final int SHARD_COUNT = 64;
    /**
     * Replay fills a gap with placeholders only up to this many (48 MiB of index); a larger one can only come
     * from damage (a legitimate transient gap is bounded by a log that once existed in memory) and is handled
     * by dropping the entries below it, so a damaged log cannot make recovery run out of memory.
     */
    static final long MAX_PLACEHOLDERS = 1 << 22;
    /** Per group: the map node, the boxed key and the GroupState header (an estimate, like all JVM sizes). */
    private static final long GROUP_OVERHEAD = 48;

    private static final class Shard {
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        final HashMap<Long, GroupState> groups = new HashMap<>();
    }

    /** Locations copied out for a read: entry {@code from + i} is number ordinals[i] of batch locations[i]. */
    public record Located(long[] locations, int[] ordinals) {
    }

    /** What {@link #stats} reports. {@code heapBytes} is the index's own accounting of its footprint. */
    public record Stats(long groups, long entries, long heapBytes) {
    }

    /** A group left with placeholders after replay: its log has a hole below {@code lastPlaceholder + 1}. */
    public record Gap(long group, long lastPlaceholder, long fileId, long position) {
    }

    /** Sees one group under its shard's read lock; must not block or keep references to {@code entries}. */
    public interface GroupVisitor {
        void visit(long group, EntryRing entries, Map<ByteKey, byte[]> state);
    }

    private final Shard[] shards = new Shard[SHARD_COUNT];

    public MemIndex() {
        for (int i = 0; i < SHARD_COUNT; i++) {
            shards[i] = new Shard();
        }
    }

    private Shard shard(long group) {
        return shards[(int) ((group * 0x9E3779B97F4A7C15L) >>> (64 - 6))];
    }

    // ---------------------------------------------------------------- mutation

    /**
     * Applies a written batch's items in order. {@code replay} (recovery) turns a gap into placeholders
     * instead of an error; at run time the write leader has already rejected batches with gaps.
     */
    public void apply(List<BatchItem> items, long fileId, long position, boolean replay) {
        long location = Location.of(fileId, position);
        int n = items.size();
        // Consecutive items of one shard are applied under one lock, and consecutive items of one group (its
        // entries, then its hard state) share one lookup: recovery applies millions of items.
        for (int i = 0; i < n; ) {
            Shard shard = shard(items.get(i).group());
            Lock lock = shard.lock.writeLock();
            lock.lock();
            try {
                GroupState gs = null;
                do {
                    BatchItem item = items.get(i);
                    if (gs == null || gs.group != item.group()) {
                        gs = shard.groups.get(item.group());
                    }
                    gs = applyLocked(shard, gs, item, location, replay, fileId, position);
                    i++;
                } while (i < n && shard(items.get(i).group()) == shard);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Applies one item to its group ({@code gs}, null if absent); returns the group's state afterwards. */
    private static GroupState applyLocked(Shard shard, GroupState gs, BatchItem item, long location, boolean replay,
            long fileId, long position) {
        long group = item.group();
        switch (item) {
            case BatchItem.Entries e -> {
                if (gs == null) {
                    gs = new GroupState(group);
                    shard.groups.put(group, gs);
                }
                if (replay && !gs.entries.isEmpty() && e.firstIndex() > gs.entries.last() + 1) {
                    gs.gapFileId = fileId;
                    gs.gapPosition = position;
                    if (e.firstIndex() - gs.entries.last() - 1 > MAX_PLACEHOLDERS) {
                        gs.entries.clear();
                        gs.droppedBelowGap = true;
                    }
                }
                gs.entries.append(e.firstIndex(), location, e.firstOrdinal(), e.count(), replay);
            }
            case BatchItem.Put p -> {
                if (gs == null) {
                    gs = new GroupState(group);
                    shard.groups.put(group, gs);
                }
                gs.state().put(new ByteKey(p.key()), p.value());
            }
            case BatchItem.Clean c -> {
                shard.groups.remove(group);
                return null;
            }
            case BatchItem.Compact c -> {
                if (gs != null) {
                    gs.entries.compactTo(c.index());
                }
            }
            case BatchItem.Delete d -> {
                if (gs != null && gs.state != null) {
                    gs.state.remove(new ByteKey(d.key()));
                }
            }
            case BatchItem.Retain r -> {
                if (gs != null) {
                    gs.entries.retain(r.first(), r.count());
                }
            }
            case BatchItem.ClearState c -> {
                if (gs != null) {
                    gs.state = null;
                }
            }
            case BatchItem.Commit c -> {
                return gs;
            }
        }
        if (gs != null && gs.isEmpty()) {
            shard.groups.remove(group);
            return null;
        }
        return gs;
    }

    /**
     * Points entries {@code firstIndex ..} at a rewritten copy, each only if it still has the location purge
     * copied it from (a newer write or a compaction in the meantime wins). Returns how many moved.
     */
    public int relocate(long group, long firstIndex, long[] oldLocations, int[] oldOrdinals, long newLocation,
            int newFirstOrdinal) {
        Shard shard = shard(group);
        Lock lock = shard.lock.writeLock();
        lock.lock();
        try {
            GroupState gs = shard.groups.get(group);
            if (gs == null) {
                return 0;
            }
            int moved = 0;
            for (int i = 0; i < oldLocations.length; i++) {
                if (gs.entries.replaceIf(firstIndex + i, oldLocations[i], oldOrdinals[i], newLocation,
                        newFirstOrdinal + i)) {
                    moved++;
                }
            }
            return moved;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends recovery: reports every group that still has placeholders. With {@code repair}, such a group
     * keeps only the entries above its last placeholder.
     */
    public List<Gap> finishReplay(boolean repair) {
        List<Gap> gaps = new ArrayList<>();
        for (Shard shard : shards) {
            shard.lock.writeLock().lock();
            try {
                for (GroupState gs : new ArrayList<>(shard.groups.values())) {
                    // Placeholders exist only where replay filled a gap, which records where it met one.
                    long hole = gs.gapFileId >= 0 ? gs.entries.lastPlaceholder() : -1;
                    if (hole < 0 && gs.droppedBelowGap && !gs.entries.isEmpty()) {
                        hole = gs.entries.first() - 1;
                    }
                    gs.droppedBelowGap = false;
                    gs.entries.trim();
                    if (hole >= 0) {
                        gaps.add(new Gap(gs.group, hole, gs.gapFileId, gs.gapPosition));
                        if (repair) {
                            gs.entries.compactTo(hole + 1);
                            if (gs.isEmpty()) {
                                shard.groups.remove(gs.group);
                            }
                        }
                    }
                    gs.gapFileId = -1;
                }
            } finally {
                shard.lock.writeLock().unlock();
            }
        }
        return gaps;
    }

    // ---------------------------------------------------------------- reads

    /** {first, count} of the group's entries, or null if it has none. */
    public long[] range(long group) {
        Shard shard = shard(group);
        Lock lock = shard.lock.readLock();
        lock.lock();
        try {
            GroupState gs = shard.groups.get(group);
            return gs == null || gs.entries.isEmpty() ? null : new long[] {gs.entries.first(), gs.entries.size()};
        } finally {
            lock.unlock();
        }
    }

    public OptionalLong firstIndex(long group) {
        long[] r = range(group);
        return r == null ? OptionalLong.empty() : OptionalLong.of(r[0]);
    }

    public OptionalLong lastIndex(long group) {
        long[] r = range(group);
        return r == null ? OptionalLong.empty() : OptionalLong.of(r[0] + r[1] - 1);
    }

    public byte[] get(long group, byte[] key) {
        Shard shard = shard(group);
        Lock lock = shard.lock.readLock();
        lock.lock();
        try {
            GroupState gs = shard.groups.get(group);
            byte[] v = gs == null || gs.state == null ? null : gs.state.get(new ByteKey(key));
            return v == null ? null : v.clone();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Checks that entries {@code [from, to)} all exist.
     *
     * @throws IndexOutOfBoundsException naming the group and its range when they do not
     */
    public void checkRange(long group, long from, long to) {
        Shard shard = shard(group);
        Lock lock = shard.lock.readLock();
        lock.lock();
        try {
            checkRange(shard.groups.get(group), group, from, to);
        } finally {
            lock.unlock();
        }
    }

    private static EntryRing checkRange(GroupState gs, long group, long from, long to) {
        if (gs == null || gs.entries.isEmpty()) {
            throw new IndexOutOfBoundsException("group " + group + " has no entries (asked for [" + from
                    + ", " + to + "))");
        }
        EntryRing ring = gs.entries;
        if (from < ring.first()) {
            throw new IndexOutOfBoundsException("group " + group + ": entries below " + ring.first()
                    + " are compacted (asked for [" + from + ", " + to + "))");
        }
        if (to > ring.last() + 1) {
            throw new IndexOutOfBoundsException("group " + group + ": last index is " + ring.last()
                    + " (asked for [" + from + ", " + to + "))");
        }
        return ring;
    }

    /**
     * Copies the locations of entries {@code [from, to)}, which must all exist.
     *
     * @throws IndexOutOfBoundsException naming the group and its range when they do not
     */
    public Located locate(long group, long from, long to) {
        Shard shard = shard(group);
        Lock lock = shard.lock.readLock();
        lock.lock();
        try {
            EntryRing ring = checkRange(shard.groups.get(group), group, from, to);
            int n = (int) (to - from);
            long[] locs = new long[n];
            int[] ordinals = new int[n];
            for (int i = 0; i < n; i++) {
                locs[i] = ring.location(from + i);
                ordinals[i] = ring.ordinal(from + i);
            }
            return new Located(locs, ordinals);
        } finally {
            lock.unlock();
        }
    }

    /** All groups with an entry or a key, sorted. */
    public long[] groups() {
        long[] out = new long[16];
        int n = 0;
        for (Shard shard : shards) {
            shard.lock.readLock().lock();
            try {
                for (Long g : shard.groups.keySet()) {
                    if (n == out.length) {
                        out = Arrays.copyOf(out, n * 2);
                    }
                    out[n++] = g;
                }
            } finally {
                shard.lock.readLock().unlock();
            }
        }
        out = Arrays.copyOf(out, n);
        Arrays.sort(out);
        return out;
    }

    public void forEachGroup(GroupVisitor visitor) {
        for (Shard shard : shards) {
            shard.lock.readLock().lock();
            try {
                for (GroupState gs : shard.groups.values()) {
                    visitor.visit(gs.group, gs.entries, gs.state == null ? Map.of() : gs.state);
                }
            } finally {
                shard.lock.readLock().unlock();
            }
        }
    }

    public Stats stats() {
        long groups = 0;
        long entries = 0;
        long bytes = 16L + 16L * SHARD_COUNT + 64L * SHARD_COUNT;
        for (Shard shard : shards) {
            shard.lock.readLock().lock();
            try {
                groups += shard.groups.size();
                bytes += 16L * shard.groups.size(); // the hash table slots, at the default load factor
                for (GroupState gs : shard.groups.values()) {
                    entries += gs.entries.size();
                    bytes += GROUP_OVERHEAD + gs.heapBytes();
                }
            } finally {
                shard.lock.readLock().unlock();
            }
        }
        return new Stats(groups, entries, bytes);
    }

    // Package-level view for tests of this package.
    Map<Long, GroupState> snapshotForTest() {
        Map<Long, GroupState> all = new HashMap<>();
        for (Shard shard : shards) {
            all.putAll(shard.groups);
        }
        return all;
    }
}
