package io.varve.jmh;

import io.varve.jmh.data.Keys;
import io.varve.jmh.store.StoreSettings;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;

import java.util.concurrent.TimeUnit;

/**
 * Synced single puts (fdatasync before returning) from 1, 8 and 64 threads into an empty store: the group
 * commit benchmark. Besides throughput it reports, as JMH secondary metrics, {@code commits} (synced puts
 * done) and {@code fsyncs} (log syncs the engine did) per iteration; the report divides them into commits
 * per fsync. Varve and RocksDB count their fsyncs (RocksDB through its Statistics, on only here);
 * LevelDB-java cannot tell, so its fsyncs stay 0 and the report shows n/a.
 *
 * <p>Random keys over the {@code entries} key space: the data stays small because synced writes are slow,
 * so one store serves the whole trial.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SyncWriteBenchmark extends StoreBenchmark {

    @Param({"100"})
    public int valueSize;

    /** Fsyncs done when the current iteration started. */
    volatile long fsyncsAtStart;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected StoreSettings settings() {
        return StoreSettings.defaults().withRocksStatistics(true);
    }

    @Override
    protected void beforeIteration(IterationParams params) {
        fsyncsAtStart = db.fsyncs();
    }

    /**
     * Per-thread counters that JMH sums over threads. Only thread 0 reports fsyncs: they are a store-wide
     * count, refreshed after each of its writes (a counter read, negligible next to an fsync).
     */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class SyncCounters {
        public long commits;
        public long fsyncs;
        boolean reportsFsyncs;

        @Setup(Level.Iteration)
        public void reset(ThreadParams thread) {
            commits = 0;
            fsyncs = 0;
            reportsFsyncs = thread.getThreadIndex() == 0;
        }
    }

    private void syncedPut(Worker w, SyncCounters counters) {
        int k = w.random.nextInt(entries);
        db.put(Keys.key(k), values.get(k), true);
        counters.commits++;
        if (counters.reportsFsyncs) {
            long now = db.fsyncs();
            counters.fsyncs = now < 0 ? 0 : now - fsyncsAtStart;
        }
    }

    @Benchmark
    @Threads(1)
    public void syncwrite_t1(Worker w, SyncCounters counters) {
        syncedPut(w, counters);
    }

    @Benchmark
    @Threads(8)
    public void syncwrite_t8(Worker w, SyncCounters counters) {
        syncedPut(w, counters);
    }

    @Benchmark
    @Threads(64)
    public void syncwrite_t64(Worker w, SyncCounters counters) {
        syncedPut(w, counters);
    }
}
