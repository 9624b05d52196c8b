package io.varve.core.internal.memtable;

import static io.varve.core.internal.memtable.SkiplistNodeLayout.NIL;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A lock-free hash index beside the skiplist that maps a user key to the node of its newest version, so a
 * point lookup that hits costs one hash and one key comparison instead of a skiplist descent (whose node
 * comparisons dominated lookup profiles: dozens of cache misses per search).
 *
 * <h2>Design</h2>
 * An open-addressing table of ints (0 = empty slot) in off-heap memory owned by the memtable's arena, probed
 * linearly for at most {@link #PROBES} slots. A slot holds a node offset divided by the node alignment, and
 * above it, in the bits the arena's size leaves free, a <em>tag</em>: bits of the key's hash that the slot's
 * position does not use. A probe compares tags first and reads the node's key only when they agree, so a
 * slot of another key rarely costs a cache miss into the arena (it was most of a lookup's time when every
 * probe read the node). Tags change nothing below: equal keys have equal tags, so a tag mismatch is simply
 * "another key". A slot is claimed by one user key for good: it
 * goes from empty to a node of that key with a CAS, and afterwards only to newer nodes of the same key, again
 * by CAS, never back to empty and never to another key. Nothing is ever removed, which is what makes the
 * table simple enough to be lock-free without tombstones or resizing. When all probed slots belong to other
 * keys the key is simply not indexed; the table is sized so that this is rare (see {@link #slotCountFor}).
 *
 * <h2>Invariants and why lookups are exact</h2>
 * <ol>
 *   <li>A node is indexed only after it is linked into the skiplist, by the thread that inserted it and
 *       before its insert returns. So every insert that completed before a reader started (in particular
 *       every insert at or below the reader's snapshot: the commit pipeline publishes a sequence only after
 *       its inserts returned) has finished its index update too, and the reader sees it (the CAS is a
 *       volatile write, the reader's slot load an acquire).</li>
 *   <li>A slot's trailer only grows ({@link #publish} replaces a node only by one with a larger trailer), so
 *       a slot of key K holds the newest version of K among the completed inserts.</li>
 *   <li>Slots are claimed in probe order and never emptied. If key K was indexed in slot q, slots before
 *       q were already held by other keys and still are; so a reader that meets an empty slot before any
 *       slot of K knows no completed insert of K exists: the memtable holds no version of K.</li>
 * </ol>
 * Hence {@link #find}: a slot of K whose node is at or below the snapshot is the answer; an empty slot
 * means absent; anything else (the newest version is above the snapshot, or K is not indexed) returns
 * {@link #UNKNOWN} and the caller searches the skiplist, which is always complete. Correctness therefore
 * never depends on the index being complete, only on the three rules above.
 *
 * <p>In unordered-write mode a sequence may become visible before its insert, so a reader can miss a
 * version whose insert is still running — the skiplist search has the same window, and the write is not yet
 * acknowledged; the index never returns a version older than one a completed insert indexed.
 */
final class PointIndex {

    /** {@link #find}'s answer when only the skiplist can tell. Node offsets are positive, NIL means absent. */
    static final int UNKNOWN = -1;

    /** Slots probed per key: bounds a miss to a few cache lines. */
    static final int PROBES = 8;

    /** Minimum slots, so even the smallest memtable indexes its keys. */
    static final int MIN_SLOTS = 1 << 10;

    private static final VarHandle SLOT = ValueLayout.JAVA_INT.varHandle();
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final long MULTIPLIER = 0x9E37_79B9_7F4A_7C15L;

    private final MemorySegment slots;
    private final int mask;
    private final Skiplist list;
    /** A slot's low {@code nodeBits} bits hold node offset / alignment; the bits above, up to 31, the tag. */
    private final int nodeBits;
    private final int nodeMask;
    private final int tagMask;

    PointIndex(MemorySegment slots, Skiplist list) {
        long count = slots.byteSize() / Integer.BYTES;
        if (Long.bitCount(count) != 1 || count > 1 << 30) {
            throw new IllegalArgumentException("slot count must be a power of two, got " + count);
        }
        this.slots = slots;
        this.mask = (int) count - 1;
        this.list = list;
        long largestNode = list.memory().byteSize() / SkiplistNodeLayout.NODE_ALIGNMENT;
        this.nodeBits = Math.max(1, 64 - Long.numberOfLeadingZeros(largestNode));
        if (nodeBits > 31) {
            throw new IllegalArgumentException("arena too large for int node slots: " + list.memory().byteSize());
        }
        this.nodeMask = (int) ((1L << nodeBits) - 1);
        this.tagMask = (int) ((1L << (31 - nodeBits)) - 1);
    }

    private int encode(int node, long hash) {
        int tag = (int) hash & tagMask;
        return (tag << nodeBits) | (node / SkiplistNodeLayout.NODE_ALIGNMENT);
    }

    private int node(int slot) {
        return (slot & nodeMask) * SkiplistNodeLayout.NODE_ALIGNMENT;
    }

    private boolean tagMatches(int slot, long hash) {
        return (slot >>> nodeBits) == ((int) hash & tagMask);
    }

    /**
     * Slots for a memtable of {@code capacity} bytes: one per 32 bytes, a power of two. A node takes at least
     * 24 bytes plus its key and value, so typical entries (keys of 16 bytes and up) leave the table at most
     * about half full; only keys that are tiny and all distinct overflow it, and they then fall back to the
     * skiplist. The table costs an eighth of the memtable's capacity.
     */
    static long slotCountFor(long capacity) {
        return Math.max(MIN_SLOTS, Long.highestOneBit(capacity / 32));
    }

    /**
     * Indexes {@code node}, just linked into the skiplist for ({@code userKey}, {@code trailer}), unless a
     * newer version of the key is indexed already or the key's probe window is held by other keys.
     */
    void publish(int node, MemorySegment userKey, long trailer) {
        long hash = hash(userKey);
        int start = (int) (hash >>> 32);
        int encoded = encode(node, hash);
        for (int probe = 0; probe < PROBES; probe++) {
            long offset = (long) ((start + probe) & mask) * Integer.BYTES;
            while (true) {
                int current = (int) SLOT.getAcquire(slots, offset);
                if (current == NIL) {
                    if (SLOT.compareAndSet(slots, offset, NIL, encoded)) {
                        return;
                    }
                    continue; // someone claimed it: it may be our own key, look again
                }
                if (!tagMatches(current, hash) || !sameKey(node(current), userKey)) {
                    break; // another key's slot, for good
                }
                if (Long.compareUnsigned(list.trailer(node(current)), trailer) >= 0
                        || SLOT.compareAndSet(slots, offset, current, encoded)) {
                    return;
                }
                // A newer (or older) version of our key replaced it meanwhile: compare again.
            }
        }
    }

    /**
     * The node of the newest version of {@code userKey} with trailer {@code <= seekTrailer}, if the index
     * can tell: the node, {@link SkiplistNodeLayout#NIL} when the memtable holds no version of the key at
     * all, or {@link #UNKNOWN} when the skiplist must be searched.
     */
    int find(MemorySegment userKey, long seekTrailer) {
        long hash = hash(userKey);
        int start = (int) (hash >>> 32);
        for (int probe = 0; probe < PROBES; probe++) {
            int current = (int) SLOT.getAcquire(slots, (long) ((start + probe) & mask) * Integer.BYTES);
            if (current == NIL) {
                return NIL;
            }
            if (tagMatches(current, hash) && sameKey(node(current), userKey)) {
                int node = node(current);
                return Long.compareUnsigned(list.trailer(node), seekTrailer) <= 0 ? node : UNKNOWN;
            }
        }
        return UNKNOWN;
    }

    private boolean sameKey(int node, MemorySegment userKey) {
        return list.userKeyEquals(node, userKey);
    }

    /**
     * Eight bytes at a time, multiply and fold; only this table depends on it (it is never stored). The high
     * half picks the slot, the low bits make the tag.
     */
    static long hash(MemorySegment key) {
        long length = key.byteSize();
        long h = length * MULTIPLIER;
        long i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            h = (h ^ key.get(WORD, i)) * MULTIPLIER;
            h ^= h >>> 29;
        }
        for (; i < length; i++) {
            h = (h ^ (key.get(ValueLayout.JAVA_BYTE, i) & 0xFFL)) * MULTIPLIER;
        }
        h ^= h >>> 32;
        h *= MULTIPLIER;
        return h ^ (h >>> 29);
    }
}
