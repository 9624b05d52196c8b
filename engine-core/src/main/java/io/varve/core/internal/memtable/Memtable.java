package io.varve.core.internal.memtable;

import io.varve.base.RefCount;

import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.memtable.SkiplistNodeLayout.NIL;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.rangedel.FragmentedTombstones;
import io.varve.core.internal.rangedel.RangeTombstone;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The in-memory write buffer: a sorted set of internal entries (user key, trailer, value) in internal-key order
 * (see {@link InternalKey}), held off-heap in one fixed-size segment, written by many threads at once without
 * locks and read concurrently by iterators and point lookups.
 *
 * <h2>Design</h2>
 * A skiplist whose nodes are bump-allocated from a {@link MemtableArena}: one CAS on the arena's end pointer
 * per node, no per-node frees, and int offsets as node addresses (hence the 2 GiB limit). Entries are never
 * removed or changed, which keeps the list free of the hard parts of lock-free lists (deletion marks, ABA).
 * When the arena is full, {@link #add} returns false and the caller rotates to a fresh memtable; this one
 * becomes immutable in practice and is flushed. Node layout: {@link SkiplistNodeLayout}.
 *
 * <p>Point lookups first ask a {@link PointIndex}, a lock-free hash table from user key to the node of its
 * newest version (in a side segment of the arena, an eighth of the capacity, not counted in
 * {@link #approximateMemoryUsage()}). A hit or a sure miss costs one hash and at most a few slot probes;
 * only when the newest version is above the reader's snapshot, or the key could not be indexed, does the
 * lookup search the skiplist. {@link #add} indexes a node after linking it and before returning.
 *
 * <h2>Why readers never see a half-built node</h2>
 * <ol>
 *   <li>A writer fills in the whole node (trailer, lengths, key and value bytes, its own level-0 link) with
 *       plain writes while the node is still private: no link anywhere points to it.</li>
 *   <li>It then publishes the node with a {@code compareAndSet} on its predecessor's level-0 link. The CAS has
 *       volatile semantics, so every write before it happens-before any read that observes its result.</li>
 *   <li>Readers load every link with acquire semantics ({@code getAcquire}). Observing the new offset thus
 *       makes the node's contents visible. A node's offset is only ever learnt through such a link.</li>
 *   <li>Upper levels are linked afterwards, bottom-up, each with its own CAS. They are shortcuts: a search that
 *       misses a not-yet-linked level still reaches the node along level 0. A tower level is read only by a
 *       search that reached the node at that level or above, i.e. after it was linked there.</li>
 * </ol>
 * A CAS that fails (another node slipped in after the predecessor) is retried after re-searching from the
 * same predecessor: nodes never move or disappear, so it still precedes the new key. Every level is thus at
 * all times a sorted list, and an iterator walking level 0 always sees a sorted sequence of complete entries,
 * possibly including ones inserted after it started.
 *
 * <p>(user key, trailer) pairs are unique by construction, since each write gets its own sequence number. A
 * duplicate is a caller bug and {@link #add} rejects it with {@link IllegalStateException}, leaving the memtable
 * unchanged. The check is exact even between racing writers: of two inserts of the same internal key only one
 * can win the level-0 CAS, and the loser re-searches and sees the winner.
 *
 * <h2>Lifetime</h2>
 * The memtable owns its arena (a shared {@link java.lang.foreign.Arena}) and frees it when the last reference
 * is dropped. It starts with one reference, its owner's. Every reader that may outlive the owner's reference
 * (a flush, an iterator, a read that hands out value slices) holds its own via {@link #retain()} /
 * {@link #release()}; {@link #iterator()} takes one itself and its {@code close()} drops it. Once the count hits
 * zero the arena is closed at once and the memtable can never be retained again.
 *
 * <p>Even a ref-counting bug cannot crash the JVM. Closing a shared arena is a handshake with every thread:
 * the JVM waits until no thread is inside an access to the segment, and any access afterwards (including
 * through slices handed out earlier) fails its liveness check with {@link IllegalStateException} instead of
 * touching freed memory. With correct reference counting that exception never happens.
 *
 * <p>Thread safety: {@link #add}, {@link #get}, {@link #iterator()}, the statistics and the reference counting
 * may all be called from any number of threads at once. A single iterator is for one thread.
 */
public final class Memtable {

    public static final long MIN_CAPACITY = 64 * 1024;
    /** Exclusive: node offsets are ints. */
    public static final long CAPACITY_LIMIT = 1L << 31;

    private final MemtableArena arena;
    private final Skiplist list;
    private final PointIndex index;
    /** The largest node that fits in this memtable when it is empty. */
    private final long largestNodeSize;
    private final RefCount references = new RefCount("memtable");
    private final MemtableTombstones tombstones = new MemtableTombstones();

    /**
     * @param capacityBytes size of the off-heap segment, at least {@link #MIN_CAPACITY}, below
     *     {@link #CAPACITY_LIMIT}; allocated up front, its pages zeroed as they are first written where the
     *     JVM allows it ({@link MemtableArena})
     */
    public Memtable(long capacityBytes) {
        this(capacityBytes, "memtable");
    }

    /**
     * @param owner who must release it, for the leak detector's report (the database directory)
     * @see #Memtable(long)
     */
    public Memtable(long capacityBytes, Object owner) {
        this(capacityBytes, PointIndex.slotCountFor(capacityBytes), owner);
    }

    /** Tests choose a tiny point index so that keys overflow it and lookups take the skiplist path. */
    Memtable(long capacityBytes, long indexSlots) {
        this(capacityBytes, indexSlots, "memtable");
    }

    private Memtable(long capacityBytes, long indexSlots, Object owner) {
        if (capacityBytes < MIN_CAPACITY || capacityBytes >= CAPACITY_LIMIT) {
            throw new IllegalArgumentException("memtable capacity must be in [" + MIN_CAPACITY + ", "
                    + CAPACITY_LIMIT + "), got " + capacityBytes);
        }
        this.arena = new MemtableArena(capacityBytes, owner);
        this.list = new Skiplist(arena);
        this.index = new PointIndex(arena.allocateSide(indexSlots * Integer.BYTES), list);
        this.largestNodeSize = capacityBytes - arena.allocatedBytes();
    }

    /**
     * Inserts an entry, copying key and value into the memtable. Safe to call from many threads at once.
     *
     * @param trailer {@code sequence << 8 | kind}, see {@link InternalKey#trailer}
     * @return false, with nothing inserted, when the memtable has no room left for this entry: rotate to a new
     *     memtable and retry there (an entry that passes the size check always fits in an empty memtable)
     * @throws IllegalArgumentException if the kind code is unknown, or the entry is too big to ever fit in a
     *     memtable of this capacity
     * @throws IllegalStateException if this exact (user key, trailer) is already present, or the memtable
     *     has been freed
     */
    public boolean add(MemorySegment userKey, long trailer, MemorySegment value) {
        requireLive();
        ValueKind kind = ValueKind.fromCodeOrNull(InternalKey.kindCode(trailer));
        if (kind == null) {
            throw new IllegalArgumentException("unknown value kind code " + InternalKey.kindCode(trailer));
        }
        if (Skiplist.maxNodeSize(userKey.byteSize(), value.byteSize()) > largestNodeSize) {
            throw new IllegalArgumentException("entry of " + userKey.byteSize() + " key bytes and "
                    + value.byteSize() + " value bytes can never fit in a memtable of " + arena.capacity()
                    + " bytes");
        }
        if (kind == ValueKind.RANGE_DELETE) {
            // A range deletion from a write batch: the key is the range's begin, the value its end. It lives
            // on the heap but is charged to the arena like a one-level node, so range deletions fill the
            // memtable and rotate it like any write, bounding the tombstones one memtable holds.
            if (arena.allocate(SkiplistNodeLayout.nodeSize(1, userKey.byteSize(), value.byteSize()))
                    == MemtableArena.NO_ROOM) {
                return false;
            }
            tombstones.add(new RangeTombstone(userKey.toArray(ValueLayout.JAVA_BYTE),
                    value.toArray(ValueLayout.JAVA_BYTE), InternalKey.sequence(trailer)));
            return true;
        }
        int node = list.insert(userKey, trailer, value);
        if (node == NIL) {
            return false;
        }
        // After the skiplist link and before returning: see PointIndex for why readers may rely on that.
        index.publish(node, userKey, trailer);
        return true;
    }

    /**
     * Finds the newest entry for {@code userKey} with sequence {@code <= snapshotSequence}. Allocates nothing.
     * A value found is readable through {@code out} while the caller keeps this memtable retained.
     *
     * @return true when this memtable decides the key's fate at the snapshot ({@code FOUND} or
     *     {@code DELETED}); false ({@code NOT_FOUND}) when older sources must be consulted
     */
    public boolean get(MemorySegment userKey, long snapshotSequence, LookupResult out) {
        requireLive();
        if (snapshotSequence < 0 || snapshotSequence > InternalKey.MAX_SEQUENCE) {
            throw new IllegalArgumentException("snapshot sequence out of range: " + snapshotSequence);
        }
        long seekTrailer = InternalKey.seekTrailer(snapshotSequence);
        int node = index.find(userKey, seekTrailer);
        if (node == PointIndex.UNKNOWN) {
            node = list.findGreaterOrEqual(userKey, 0, userKey.byteSize(), seekTrailer);
            if (node != NIL && !list.userKeyEquals(node, userKey)) {
                node = NIL;
            }
        }
        if (node == NIL) {
            out.setNotFound();
            return false;
        }
        long trailer = list.trailer(node);
        // add() admits only known kinds, so the code read back is always one of these.
        switch (ValueKind.fromCode(InternalKey.kindCode(trailer))) {
            case DELETE -> out.setDeleted(trailer);
            case PUT -> out.setFound(trailer, list.memory(), list.valueOffset(node), list.valueLength(node));
            case MERGE -> out.setMerge(trailer, list.memory(), list.valueOffset(node), list.valueLength(node));
            case RANGE_DELETE -> throw new IllegalStateException("range deletion stored as a point entry");
        }
        return true;
    }

    /**
     * How many merge operands for {@code userKey} lie on top of its newest other entry here, counting at most
     * {@code limit}: the write path folds a key's chain once it reaches its limit. Entries above any reader's
     * sequence count too; the figure only decides when to fold, never what a read returns.
     */
    public int successiveMerges(MemorySegment userKey, int limit) {
        requireLive();
        int node = list.findGreaterOrEqual(userKey, 0, userKey.byteSize(),
                InternalKey.seekTrailer(InternalKey.MAX_SEQUENCE));
        int count = 0;
        while (count < limit && node != NIL && list.userKeyEquals(node, userKey)
                && InternalKey.kindCode(list.trailer(node)) == ValueKind.MERGE.code()) {
            count++;
            node = list.next(node);
        }
        return count;
    }

    /**
     * A new, unpositioned cursor over the entries. It retains this memtable until closed, so callers must close
     * it (try-with-resources).
     *
     * @throws IllegalStateException if the memtable has been freed
     */
    public InternalIterator iterator() {
        return new MemtableIterator(this, list);
    }

    /** Bytes taken from the arena so far (nodes, padding and the head), the figure to compare to capacity. */
    public long approximateMemoryUsage() {
        return arena.allocatedBytes();
    }

    public long capacity() {
        return arena.capacity();
    }

    /** Entries fully inserted so far. */
    public long entryCount() {
        return list.entryCount();
    }

    public boolean isEmpty() {
        return entryCount() == 0 && tombstones.count() == 0;
    }

    /**
     * This memtable's range tombstones, fragmented; readers filter by sequence
     * ({@link FragmentedTombstones#coveringSequence}), so tombstones newer than a reader's sequence stay unseen.
     */
    public FragmentedTombstones rangeTombstones() {
        return tombstones.fragmented();
    }

    /** Range deletions added so far. */
    public int rangeTombstoneCount() {
        return tombstones.count();
    }

    /**
     * Takes a reference, keeping the memory alive until the matching {@link #release()}.
     *
     * @throws IllegalStateException if the memtable has already been freed: it is never brought back
     */
    public void retain() {
        references.retain();
    }

    /**
     * Drops a reference; the last one frees the off-heap memory at once.
     *
     * @throws IllegalStateException if there is no reference left to drop
     */
    public void release() {
        if (references.release()) {
            arena.close();
        }
    }

    /** Whether the memory has been freed (the reference count reached zero). */
    public boolean isFreed() {
        return references.get() <= 0;
    }

    private void requireLive() {
        if (references.get() <= 0) {
            throw new IllegalStateException("memtable already freed");
        }
    }

    @Override
    public String toString() {
        return "Memtable[entries=" + entryCount() + ", used=" + approximateMemoryUsage() + "/" + capacity() + "]";
    }
}
