package io.varve.core;

import io.varve.core.metrics.EngineStatistics;

/**
 * Reads engine statistics that are package-private in engine-core, for the benchmarks only.
 *
 * <p>A deliberate hack: this class lives in the jmh module but in package {@code io.varve.core}, so it can call
 * {@code DbImpl.pipeline()} and {@code DbImpl.statistics()} without engine-core exporting a public
 * statistics API yet (its meters need a Micrometer registry). It works because benchmarks.jar is one shaded,
 * non-modular jar: both copies of the package end up in the same jar and class loader. Replace it with the
 * public accessor once engine-core has one.
 */
public final class BenchmarkAccess {

    private BenchmarkAccess() {
    }

    /** {@code {fsyncs, syncedCommits}} since the database was opened. */
    public static long[] syncStatistics(Db db) {
        CommitPipeline pipeline = ((DbImpl) db).pipeline();
        return new long[] {pipeline.syncCount(), pipeline.commitsSynced()};
    }

    /** Batch bytes logged so far, record framing excluded (what RocksDB's WAL_FILE_BYTES counts). */
    public static long walBatchBytes(Db db) {
        return ((DbImpl) db).statistics().walBatchBytes();
    }

    /** Everything the engine's meters publish, read live. */
    public static EngineStatistics statistics(Db db) {
        return ((DbImpl) db).statistics();
    }
}
