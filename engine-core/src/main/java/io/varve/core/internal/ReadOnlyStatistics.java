package io.varve.core.internal;

import io.varve.core.metrics.EngineStatistics;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.internal.version.VersionSet;

/**
 * A read-only instance's statistics: it logs, flushes and compacts nothing, so only the block cache and the
 * read views move; every other figure is 0.
 */
public final class ReadOnlyStatistics implements EngineStatistics {

    private final BlockCache blockCache;
    private final VersionSet versions;

    /** @param blockCache null when the instance has none */
    ReadOnlyStatistics(BlockCache blockCache, VersionSet versions) {
        this.blockCache = blockCache;
        this.versions = versions;
    }

    @Override
    public long writeStops() {
        return 0;
    }

    @Override
    public long writeSlowdowns() {
        return 0;
    }

    @Override
    public long writeStallNanos() {
        return 0;
    }

    @Override
    public long flushes() {
        return 0;
    }

    @Override
    public long flushNanos() {
        return 0;
    }

    @Override
    public long flushBytesWritten() {
        return 0;
    }

    @Override
    public long compactions() {
        return 0;
    }

    @Override
    public long compactionNanos() {
        return 0;
    }

    @Override
    public long compactionBytesRead() {
        return 0;
    }

    @Override
    public long compactionBytesWritten() {
        return 0;
    }

    @Override
    public long compactionTablesMoved() {
        return 0;
    }

    @Override
    public long pendingCompactionBytes() {
        return 0;
    }

    @Override
    public int level0Tables() {
        return 0;
    }

    @Override
    public int immutableMemtables() {
        return 0;
    }

    @Override
    public long memtableBytes() {
        return 0;
    }

    @Override
    public boolean hasBlockCache() {
        return blockCache != null;
    }

    @Override
    public long blockCacheHits() {
        return blockCache == null ? 0 : blockCache.hits();
    }

    @Override
    public long blockCacheMisses() {
        return blockCache == null ? 0 : blockCache.misses();
    }

    @Override
    public long blockCacheBytes() {
        return blockCache == null ? 0 : blockCache.usedBytes();
    }

    @Override
    public long walBytesWritten() {
        return 0;
    }

    @Override
    public long walBatchBytes() {
        return 0;
    }

    @Override
    public long walSyncs() {
        return 0;
    }

    @Override
    public long walSyncedCommits() {
        return 0;
    }

    @Override
    public long readViewAcquisitions() {
        return versions.readViewAcquisitions();
    }
}
