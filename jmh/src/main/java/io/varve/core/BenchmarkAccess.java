package io.varve.core;

/**
 * Reads engine statistics that are package-private in engine-core, for the benchmarks only.
 *
 * <p>A deliberate hack: this class lives in the jmh module but in package {@code io.varve.core}, so it can call
 * {@code DbImpl.syncStatistics()} without engine-core exporting a public statistics API yet. It works because
 * benchmarks.jar is one shaded, non-modular jar: both copies of the package end up in the same jar and class
 * loader. Replace it with the public accessor once engine-core has one.
 */
public final class BenchmarkAccess {

    private BenchmarkAccess() {
    }

    /** {@code {fsyncs, syncedCommits}} since the database was opened. */
    public static long[] syncStatistics(Db db) {
        return ((DbImpl) db).syncStatistics();
    }
}
