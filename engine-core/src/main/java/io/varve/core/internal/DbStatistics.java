package io.varve.core.internal;

import io.varve.core.Options;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.metrics.EngineMeters;
import io.varve.core.metrics.EngineStatistics;
import io.varve.core.internal.metrics.MeterBinding;
import io.varve.core.internal.metrics.WorkTimer;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.VersionSet;

import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One database's statistics, read straight from the counters its components keep anyway, and the meters
 * bound to them when {@link Options} carries a registry.
 *
 * <p>Almost everything is a sum of adders or volatile reads. One figure does more: {@link #memtableBytes()}
 * pins each column family's read view to reach the memtables.
 * A view must not be pinned once the version set has released its last one (pinning would then retry
 * forever), and a scrape may still run a removed meter's function after close, so that read holds
 * {@code closeLock}'s read lock and {@link #close()} sets {@code closed} under the write lock. Close runs
 * before the version set closes; every later read sees {@code closed} and answers 0. Only scrapes take the
 * lock, never reads or writes of the database.
 */
public final class DbStatistics implements EngineStatistics, AutoCloseable {

    private final VersionSet versions;
    private final CommitPipeline pipeline;
    private final CompactionScheduler compactions;
    private final WriteStalls stalls;
    private final BlockCache blockCache;
    private final LongAdder flushBytes;
    private final WorkTimer flushes;
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private boolean closed;
    private MeterBinding meters = MeterBinding.NONE;

    private DbStatistics(VersionSet versions, CommitPipeline pipeline, CompactionScheduler compactions,
                         WriteStalls stalls, BlockCache blockCache, LongAdder flushBytes, WorkTimer flushes) {
        this.versions = versions;
        this.pipeline = pipeline;
        this.compactions = compactions;
        this.stalls = stalls;
        this.blockCache = blockCache;
        this.flushBytes = flushBytes;
        this.flushes = flushes;
    }

    /**
     * The statistics of the database in {@code dir}, with meters in {@code options}' registry if it has one.
     *
     * @param blockCache null when the database has none
     */
    static DbStatistics bind(Options options, Path dir, VersionSet versions, CommitPipeline pipeline,
                             CompactionScheduler compactions, WriteStalls stalls, BlockCache blockCache,
                             LongAdder flushBytes, WorkTimer flushes) {
        DbStatistics statistics = new DbStatistics(versions, pipeline, compactions, stalls, blockCache, flushBytes,
                flushes);
        statistics.meters = EngineMeters.bind(ApiAccess.get().meterRegistry(options), dir.toString(), statistics);
        return statistics;
    }

    @Override
    public long writeStops() {
        return stalls.stops.sum();
    }

    @Override
    public long writeSlowdowns() {
        return stalls.slowdowns.sum();
    }

    @Override
    public long writeStallNanos() {
        return stalls.stallNanos.sum();
    }

    @Override
    public long flushes() {
        return flushes.count();
    }

    @Override
    public long flushNanos() {
        return flushes.totalNanos();
    }

    @Override
    public long flushBytesWritten() {
        return flushBytes.sum();
    }

    @Override
    public long compactions() {
        return compactions.completedCount();
    }

    @Override
    public long compactionNanos() {
        return compactions.nanosSpent.sum();
    }

    @Override
    public long compactionBytesRead() {
        return compactions.bytesRead.sum();
    }

    @Override
    public long compactionBytesWritten() {
        return compactions.bytesWritten.sum();
    }

    /** Times a merge operator threw in compaction; those operands were written unmerged. */
    public long compactionMergeFailures() {
        return compactions.mergeFailures();
    }

    @Override
    public long compactionTablesMoved() {
        return compactions.tablesMoved.sum();
    }

    @Override
    public long pendingCompactionBytes() {
        return stalls.state().pendingCompactionBytes();
    }

    @Override
    public int level0Tables() {
        return stalls.state().level0Tables();
    }

    @Override
    public int immutableMemtables() {
        return stalls.state().immutableMemtables();
    }

    @Override
    public long memtableBytes() {
        closeLock.readLock().lock();
        try {
            if (closed) {
                return 0;
            }
            long[] bytes = {0};
            versions.forEachView(view -> {
                for (Memtable memtable : view.memtablesNewestFirst()) {
                    bytes[0] += memtable.approximateMemoryUsage();
                }
            });
            return bytes[0];
        } finally {
            closeLock.readLock().unlock();
        }
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
        return pipeline.logBytesWritten();
    }

    @Override
    public long walBatchBytes() {
        return pipeline.loggedBatchBytes();
    }

    @Override
    public long walSyncs() {
        return pipeline.syncCount();
    }

    @Override
    public long walSyncedCommits() {
        return pipeline.commitsSynced();
    }

    @Override
    public long readViewAcquisitions() {
        return versions.readViewAcquisitions();
    }

    /** Removes the meters and stops pinning views; called by close before the version set closes. */
    @Override
    public void close() {
        closeLock.writeLock().lock();
        try {
            closed = true;
        } finally {
            closeLock.writeLock().unlock();
        }
        meters.close();
    }
}
