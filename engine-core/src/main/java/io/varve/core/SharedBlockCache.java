package io.varve.core;

import io.varve.core.internal.sst.BlockCache;

/**
 * A block cache several databases of a process share, so that one figure bounds the decompressed blocks all of
 * them keep (RocksDB's shared {@code Cache}). Give the same instance to each database's
 * {@link Options#withBlockCache}; the blocks of all of them then compete for one capacity, evicted by the same
 * clock. Blocks are keyed by database as well as by file, so databases never see each other's blocks, and a
 * database's blocks leave the cache when it closes.
 *
 * <p>The figures below are the whole cache's; each database's own hits and misses are in its statistics
 * ({@code block-cache-usage}, a database property, reports the whole shared cache, as in RocksDB). Thread-safe.
 * The cache holds heap memory only and needs no closing.
 */
public final class SharedBlockCache {

    /** More shards spread the lock of puts over more threads, but each holds capacity / shards at most. */
    private static final int MAX_SHARDS = 64;
    private static final long MIN_SHARD_BYTES = 1L << 20;

    private final BlockCache cache;

    /** A cache of at most {@code capacityBytes} of blocks and their bookkeeping (at least 1). */
    public SharedBlockCache(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("a shared block cache needs a positive capacity: " + capacityBytes);
        }
        this.cache = new BlockCache(capacityBytes, (int) Math.clamp(capacityBytes / MIN_SHARD_BYTES, 1, MAX_SHARDS));
    }

    public long capacityBytes() {
        return cache.capacityBytes();
    }

    /** Bytes charged now, bookkeeping included; never above {@link #capacityBytes()}. */
    public long usedBytes() {
        return cache.usedBytes();
    }

    public int blockCount() {
        return cache.blockCount();
    }

    /** Lookups that found their block, over every database that used the cache. */
    public long hits() {
        return cache.hits();
    }

    /** Lookups of cacheable blocks that had to read them, over every database that used the cache. */
    public long misses() {
        return cache.misses();
    }

    /** A view for one more database. */
    BlockCache forDatabase() {
        return cache.forDatabase();
    }

    @Override
    public String toString() {
        return "SharedBlockCache[" + usedBytes() + "/" + capacityBytes() + " bytes, " + blockCount() + " blocks]";
    }
}
