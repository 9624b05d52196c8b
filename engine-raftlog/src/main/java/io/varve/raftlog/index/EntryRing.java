package io.varve.raftlog.index;

/**
 * The locations of one group's entries {@code [first, first + size)}: two parallel primitive arrays used as
 * a ring, so compaction (at the front) and truncation (at the back) are O(1) and no object exists per
 * entry. Each entry costs 12 bytes: the batch location ({@link Location}) and the entry's number within
 * that batch. Offsets and lengths are not stored: the batch's footer has them, and a reader decodes it anyway.
 *
 * <p>Capacity grows by a quarter at a time, which bounds the slack of a growing log at 25% (at most 15 bytes per
 * entry plus two array headers), and shrinks when under a quarter full after a compaction or truncation, so
 * a log that shrank does not keep its peak footprint.
 *
 * <p>Not thread-safe; guarded by its index shard's lock.
 */
public final class EntryRing {
    static final int MIN_CAPACITY = 8;
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 16;
    private static final long[] NO_LOCS = new long[0];
    private static final int[] NO_ORDINALS = new int[0];

    private long[] locs = NO_LOCS;
    private int[] ordinals = NO_ORDINALS;
    private int head;
    private int size;
    private long first;

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The first index; meaningless when empty. */
    public long first() {
        return first;
    }

    public long last() {
        return first + size - 1;
    }

    public boolean contains(long index) {
        return size > 0 && index >= first && index - first < size;
    }

    public long location(long index) {
        return locs[slot(index)];
    }

    /** The entry's number within its batch. */
    public int ordinal(long index) {
        return ordinals[slot(index)];
    }

    /**
     * Raft append: entries from {@code firstIndex} replace everything at or after it. Appending past
     * {@code last() + 1} is a gap; only recovery asks for one ({@code fillGap}), and it is filled with
     * placeholders that later replayed batches are expected to overwrite or cut away.
     */
    void append(long firstIndex, long location, int firstOrdinal, int count, boolean fillGap) {
        if (size == 0 || firstIndex <= first) {
            size = 0;
            head = 0;
            first = firstIndex;
        } else if (firstIndex <= last() + 1) {
            size = (int) (firstIndex - first);
        } else {
            if (!fillGap) {
                throw new IllegalStateException("gap: appending at " + firstIndex + " after " + last());
            }
            long gap = firstIndex - last() - 1;
            ensureCapacity(size + gap, fillGap);
            for (long i = 0; i < gap; i++) {
                put(size++, Location.PLACEHOLDER, 0);
            }
        }
        ensureCapacity((long) size + count, fillGap);
        for (int k = 0; k < count; k++) {
            put(size++, location, firstOrdinal + k);
        }
        maybeShrink();
    }

    /** Drops entries below {@code index}; returns how many. */
    long compactTo(long index) {
        if (size == 0 || index <= first) {
            return 0;
        }
        int drop = (int) Math.min(size, index - first);
        head = wrap(head + drop);
        size -= drop;
        first += drop;
        if (size == 0) {
            clear();
        } else {
            maybeShrink();
        }
        return drop;
    }

    /** Keeps only [from, from + count). */
    void retain(long from, long count) {
        if (count <= 0) {
            clear();
            return;
        }
        compactTo(from);
        if (size > 0) {
            long end = from + count; // exclusive; Retain items are checked not to overflow
            if (end <= first) {
                clear();
            } else if (end - first < size) {
                size = (int) (end - first);
                maybeShrink();
            }
        }
    }

    void clear() {
        size = 0;
        head = 0;
        first = 0;
        if (locs.length > MIN_CAPACITY * 8) {
            locs = NO_LOCS;
            ordinals = NO_ORDINALS;
        }
    }

    /** Replaces the location of {@code index} if it is still {@code (oldLoc, oldOrdinal)}. */
    boolean replaceIf(long index, long oldLoc, int oldOrdinal, long newLoc, int newOrdinal) {
        if (!contains(index)) {
            return false;
        }
        int s = slot(index);
        if (locs[s] != oldLoc || ordinals[s] != oldOrdinal) {
            return false;
        }
        locs[s] = newLoc;
        ordinals[s] = newOrdinal;
        return true;
    }

    /** The highest index holding a placeholder, or -1. */
    long lastPlaceholder() {
        for (int k = size - 1; k >= 0; k--) {
            if (locs[wrap(head + k)] == Location.PLACEHOLDER) {
                return first + k;
            }
        }
        return -1;
    }

    /** Heap bytes of this ring's arrays and object, the index's own accounting. */
    long heapBytes() {
        return 40 + arrayBytes(8L * locs.length) + arrayBytes(4L * ordinals.length);
    }

    private static long arrayBytes(long payload) {
        return (16 + payload + 7) & ~7L;
    }

    private int slot(long index) {
        long k = index - first;
        if (k < 0 || k >= size) {
            throw new IndexOutOfBoundsException("index " + index + " outside [" + first + ", " + last() + "]");
        }
        return wrap(head + (int) k);
    }

    private int wrap(int s) {
        return s >= locs.length ? s - locs.length : s;
    }

    private void put(int k, long loc, int ordinal) {
        int s = wrap(head + k);
        locs[s] = loc;
        ordinals[s] = ordinal;
    }

    /**
     * @param replaying recovery is replaying the log: grow by doubling, since a group's whole log is added
     *     at once and growing by a quarter would copy it several times over; {@link #trim} ends that
     */
    private void ensureCapacity(long needed, boolean replaying) {
        if (needed <= locs.length) {
            return;
        }
        if (needed > MAX_CAPACITY) {
            throw new IllegalStateException("a group cannot index more than " + MAX_CAPACITY + " entries");
        }
        long step = replaying ? locs.length : locs.length / 4L;
        long grown = Math.max(needed, locs.length + Math.max(MIN_CAPACITY, step));
        resize((int) Math.min(MAX_CAPACITY, grown));
    }

    /** After recovery: gives back what growing by doubling left beyond the usual quarter of slack. */
    void trim() {
        if (locs.length > MIN_CAPACITY && locs.length > size + size / 4) {
            resize(Math.max(MIN_CAPACITY, size + size / 8));
        }
    }

    private void maybeShrink() {
        if (locs.length > 64 && size < locs.length / 4) {
            resize(Math.max(MIN_CAPACITY, size + size / 4));
        }
    }

    private void resize(int capacity) {
        long[] newLocs = new long[capacity];
        int[] newOrdinals = new int[capacity];
        int firstPart = Math.min(size, locs.length - head);
        if (size > 0) {
            System.arraycopy(locs, head, newLocs, 0, firstPart);
            System.arraycopy(ordinals, head, newOrdinals, 0, firstPart);
            System.arraycopy(locs, 0, newLocs, firstPart, size - firstPart);
            System.arraycopy(ordinals, 0, newOrdinals, firstPart, size - firstPart);
        }
        locs = newLocs;
        ordinals = newOrdinals;
        head = 0;
    }

    @Override
    public String toString() {
        return size == 0 ? "[]" : "[" + first + ", " + last() + "] capacity " + locs.length;
    }
}
