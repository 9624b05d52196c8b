package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The metadata records of a set of hash slots, as one iterator in key order: what a cluster node's DBSIZE,
 * KEYS, SCAN, RANDOMKEY, COUNTKEYSINSLOT, GETKEYSINSLOT and FLUSHALL walk.
 *
 * <p>In the slotted layout ({@link KeyEncoding}) the records of each run of consecutive slots are one key
 * range, so the walk is a list of disjoint ranges stepped through with one engine iterator bounded by the
 * first and the last: leaving a range seeks to the start of the next, and the slots in between are never
 * read. One range (a single slot, or a node serving one run) is the engine iterator itself. In the plain
 * layout a slot's keys are spread over the whole database, so the walk is the database's one range (narrowed
 * by a user-key prefix if given) skipping every record whose key hashes to a slot outside the set.
 *
 * <p>Not thread-safe, like every {@link DbIterator}.
 */
final class SlotRangeIterator implements DbIterator {

    /** The engine iterator over the first range's start to the last range's end; null when there is none. */
    private final DbIterator it;
    /** The ranges {@code [starts[i], ends[i])}, ascending and disjoint. */
    private final byte[][] starts;
    private final byte[][] ends;
    /** Plain layout: the slots whose keys are kept; null keeps every record. */
    private final BitSet filter;
    /** The range the engine iterator is in, once settled. */
    private int range;
    private boolean valid;

    private SlotRangeIterator(DbIterator it, List<byte[][]> ranges, BitSet filter) {
        this.it = it;
        this.starts = ranges.stream().map(r -> r[0]).toArray(byte[][]::new);
        this.ends = ranges.stream().map(r -> r[1]).toArray(byte[][]::new);
        this.filter = filter;
    }

    /**
     * The metadata records of {@code database} whose keys are in {@code slots} (null: every slot) and start
     * with {@code userPrefix} (empty: any), read from {@code reads} with {@code base}'s snapshot.
     */
    static DbIterator open(Db reads, ReadOptions base, Database database, BitSet slots, byte[] userPrefix) {
        List<byte[][]> ranges = new ArrayList<>();
        BitSet filter = null;
        byte[][] prefixBounds = userPrefix.length == 0 ? null : database.metadataPrefixBounds(userPrefix);
        if (!database.slotted()) {
            ranges.add(prefixBounds != null ? prefixBounds
                    : new byte[][] {database.metadataStart(), database.metadataEnd()});
            filter = slots;
        } else if (prefixBounds != null) {
            if (slots == null || slots.get(HashSlot.ofEveryKeyStartingWith(userPrefix))) {
                ranges.add(prefixBounds);
            }
        } else if (slots == null) {
            ranges.add(new byte[][] {database.metadataStart(), database.metadataEnd()});
        } else {
            for (int first = slots.nextSetBit(0); first >= 0 && first < HashSlot.SLOTS; ) {
                int end = Math.min(slots.nextClearBit(first), HashSlot.SLOTS);
                ranges.add(new byte[][] {KeyEncoding.slotMetadataStart(first), KeyEncoding.slotMetadataStart(end)});
                first = end < HashSlot.SLOTS ? slots.nextSetBit(end) : -1;
            }
        }
        if (ranges.isEmpty()) {
            return new SlotRangeIterator(null, ranges, null); // no range: never valid, reads nothing
        }
        ReadOptions bounded = base.withLowerBound(ranges.getFirst()[0]).withUpperBound(ranges.getLast()[1]);
        DbIterator engine = reads.iterator(bounded);
        return ranges.size() == 1 && filter == null ? engine : new SlotRangeIterator(engine, ranges, filter);
    }

    @Override
    public void seekToFirst() {
        if (starts.length == 0) {
            valid = false;
            return;
        }
        range = 0;
        it.seek(starts[0]);
        settleForward();
    }

    @Override
    public void seekToLast() {
        if (starts.length == 0) {
            valid = false;
            return;
        }
        range = starts.length - 1;
        seekBefore(ends[range]);
        settleBackward();
    }

    @Override
    public void seek(byte[] key) {
        MemorySegment k = MemorySegment.ofArray(key);
        range = 0;
        while (range < ends.length && compare(k, ends[range]) >= 0) {
            range++;
        }
        if (range == ends.length) {
            valid = false;
            return;
        }
        it.seek(compare(k, starts[range]) < 0 ? starts[range] : key);
        settleForward();
    }

    @Override
    public void seekForPrev(byte[] key) {
        MemorySegment k = MemorySegment.ofArray(key);
        range = starts.length - 1;
        while (range >= 0 && compare(k, starts[range]) < 0) {
            range--;
        }
        if (range < 0) {
            valid = false;
            return;
        }
        if (compare(k, ends[range]) >= 0) {
            seekBefore(ends[range]);
        } else {
            it.seekForPrev(key);
        }
        settleBackward();
    }

    @Override
    public boolean valid() {
        return valid;
    }

    @Override
    public void next() {
        requireValid();
        it.next();
        settleForward();
    }

    @Override
    public void prev() {
        requireValid();
        it.prev();
        settleBackward();
    }

    /** Moves forward from the engine iterator's position to the first record in a range that the filter keeps. */
    private void settleForward() {
        while (it.valid()) {
            MemorySegment k = it.keySegment();
            if (compare(k, ends[range]) >= 0) {
                while (range < ends.length && compare(k, ends[range]) >= 0) {
                    range++;
                }
                if (range == ends.length) {
                    break;
                }
            }
            if (compare(k, starts[range]) < 0) {
                it.seek(starts[range]);
                continue;
            }
            if (kept()) {
                valid = true;
                return;
            }
            it.next();
        }
        valid = false;
    }

    /** Moves backward from the engine iterator's position to the last record in a range that the filter keeps. */
    private void settleBackward() {
        while (it.valid()) {
            MemorySegment k = it.keySegment();
            if (compare(k, starts[range]) < 0) {
                while (range >= 0 && compare(k, starts[range]) < 0) {
                    range--;
                }
                if (range < 0) {
                    break;
                }
            }
            if (compare(k, ends[range]) >= 0) {
                seekBefore(ends[range]);
                continue;
            }
            if (kept()) {
                valid = true;
                return;
            }
            it.prev();
        }
        valid = false;
    }

    /** Positions the engine iterator at the last record before {@code end}. */
    private void seekBefore(byte[] end) {
        it.seekForPrev(end);
        if (it.valid() && compare(it.keySegment(), end) == 0) {
            it.prev();
        }
    }

    private boolean kept() {
        return filter == null || filter.get(HashSlot.of(KeyEncoding.userKeyOfMetadata(it.key())));
    }

    /** Unsigned byte order of {@code key} against {@code bound}, as the engine orders keys. */
    private static int compare(MemorySegment key, byte[] bound) {
        long common = MemorySegment.mismatch(key, 0, key.byteSize(), MemorySegment.ofArray(bound), 0, bound.length);
        if (common < 0) {
            return 0;
        }
        if (common == key.byteSize()) {
            return -1;
        }
        if (common == bound.length) {
            return 1;
        }
        return Integer.compare(Byte.toUnsignedInt(key.get(ValueLayout.JAVA_BYTE, common)),
                Byte.toUnsignedInt(bound[(int) common]));
    }

    private void requireValid() {
        if (!valid) {
            throw new IllegalStateException("the iterator is not positioned at a record");
        }
    }

    @Override
    public byte[] key() {
        requireValid();
        return it.key();
    }

    @Override
    public byte[] value() {
        requireValid();
        return it.value();
    }

    @Override
    public MemorySegment keySegment() {
        requireValid();
        return it.keySegment();
    }

    @Override
    public MemorySegment valueSegment() {
        requireValid();
        return it.valueSegment();
    }

    @Override
    public int key(byte[] dest) {
        requireValid();
        return it.key(dest);
    }

    @Override
    public int value(byte[] dest) {
        requireValid();
        return it.value(dest);
    }

    @Override
    public void close() {
        if (it != null) {
            it.close();
        }
    }
}
