package io.varve.core;

import java.util.Arrays;

/**
 * How a read sees the database: at a {@link Snapshot} (or the latest state), for iterators within
 * optional bounds — lower inclusive, upper exclusive, as in RocksDB — and, for point lookups, optionally
 * from the memtables alone ({@link #withMemtableOnly()}). Immutable; the {@code with} methods return copies,
 * and bounds are copied so later changes to the caller's arrays do not affect reads.
 */
public final class ReadOptions {

    private static final int ALL_TIERS = 0;
    private static final int CACHED_TIER = 1;
    private static final int MEMTABLE_TIER = 2;

    public static final ReadOptions DEFAULT = new ReadOptions(null, null, null, ALL_TIERS);

    /**
     * What {@link Db#get(ReadOptions, java.lang.foreign.MemorySegment, java.lang.foreign.MemorySegment)}
     * returns for a memtable-only or cached-only read that memory cannot decide (RocksDB's
     * {@code Status::Incomplete}): the key's fate depends on table data not in memory, so read again without
     * {@link #withMemtableOnly()} / {@link #withCachedOnly()}.
     */
    public static final long INCOMPLETE = -2;

    private final Snapshot snapshot;
    private final byte[] lowerBound;
    private final byte[] upperBound;
    /** {@link #ALL_TIERS}, {@link #CACHED_TIER} or {@link #MEMTABLE_TIER}: what point lookups may read. */
    private final int tier;

    private ReadOptions(Snapshot snapshot, byte[] lowerBound, byte[] upperBound, int tier) {
        this.snapshot = snapshot;
        this.lowerBound = lowerBound;
        this.upperBound = upperBound;
        this.tier = tier;
    }

    /** Reads at {@code snapshot}: they see exactly the writes that were visible when it was taken. */
    public static ReadOptions at(Snapshot snapshot) {
        if (snapshot == null) {
            throw new NullPointerException("snapshot");
        }
        return new ReadOptions(snapshot, null, null, ALL_TIERS);
    }

    public ReadOptions withSnapshot(Snapshot newSnapshot) {
        return new ReadOptions(newSnapshot, lowerBound, upperBound, tier);
    }

    /**
     * Point lookups consult only the memtables (RocksDB's {@code kMemtableTier}): they never touch a table,
     * so they never wait for the disk (tables are read through {@code mmap}, where any read may page-fault)
     * and can run on threads that must not block, such as network event loops. A key the memtables decide
     * (a value or a tombstone at the snapshot) is answered as usual; otherwise the answer is
     * {@link #INCOMPLETE}. Only {@code get(ReadOptions, MemorySegment, MemorySegment)} can report that, so
     * the {@code byte[]} lookups and iterators refuse these options (and {@link #withCachedOnly()}'s) with
     * {@link IllegalArgumentException}.
     */
    public ReadOptions withMemtableOnly() {
        return new ReadOptions(snapshot, lowerBound, upperBound, MEMTABLE_TIER);
    }

    /**
     * Like {@link #withMemtableOnly()}, but tables are consulted too as far as the engine holds them on the
     * heap (RocksDB's {@code kBlockCacheTier}): their filters and indexes (always on the heap) and the data
     * blocks in the block cache. A lookup that would need a block not in the cache, or a table not yet
     * opened, answers {@link #INCOMPLETE}. Never reads a file or a file mapping.
     */
    public ReadOptions withCachedOnly() {
        return new ReadOptions(snapshot, lowerBound, upperBound, CACHED_TIER);
    }

    /** Point lookups consult only the memtables ({@link #withMemtableOnly()}). */
    public boolean memtableOnly() {
        return tier == MEMTABLE_TIER;
    }

    /** Point lookups consult only what is in memory ({@link #withCachedOnly()}). */
    public boolean cachedOnly() {
        return tier == CACHED_TIER;
    }

    /** Either restricted tier: the lookup may answer {@link #INCOMPLETE}. */
    boolean mayBeIncomplete() {
        return tier != ALL_TIERS;
    }

    /** Iterators see no key below {@code bound} (inclusive bound; null removes it). */
    public ReadOptions withLowerBound(byte[] bound) {
        return new ReadOptions(snapshot, bound == null ? null : bound.clone(), upperBound, tier);
    }

    /** Iterators see no key at or above {@code bound} (exclusive bound; null removes it). */
    public ReadOptions withUpperBound(byte[] bound) {
        return new ReadOptions(snapshot, lowerBound, bound == null ? null : bound.clone(), tier);
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public byte[] lowerBound() {
        return lowerBound == null ? null : lowerBound.clone();
    }

    public byte[] upperBound() {
        return upperBound == null ? null : upperBound.clone();
    }

    byte[] lowerBoundUnsafe() {
        return lowerBound;
    }

    byte[] upperBoundUnsafe() {
        return upperBound;
    }

    @Override
    public String toString() {
        return "ReadOptions[snapshot=" + snapshot + ", lower=" + Arrays.toString(lowerBound)
                + ", upper=" + Arrays.toString(upperBound) + (memtableOnly() ? ", memtableOnly" : cachedOnly() ? ", cachedOnly" : "") + "]";
    }
}
