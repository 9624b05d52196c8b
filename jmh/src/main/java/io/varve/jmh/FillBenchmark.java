package io.varve.jmh;

import io.varve.jmh.data.Keys;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;

import java.util.concurrent.TimeUnit;

/**
 * db_bench's fillseq and fillrandom: one thread writes {@code entries} keys into an empty store, WAL on, not
 * synced. Each iteration is a single shot on a fresh store, so every engine writes exactly the same data
 * whatever its speed (a time-bound iteration would hand the faster engine a bigger data set and more
 * compaction). The score is milliseconds per whole fill; the report divides by the entry count to get
 * operations per second. A shot ends with a flush that waits until every memtable is written, so an engine
 * that holds more written data in memory cannot leave its flushes outside the timed window (the settings also
 * give every engine the same number of memtables). The warm-up fill writes an eighth of the keys but at least 100,000 (or all of them if
 * fewer): enough for the JIT, cheap in time. Secondary results ({@link WriteCounters}): bytes the engine wrote
 * (log, flushes, compactions) per byte put, and time writers were stalled, with compaction running as usual.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 2)
public class FillBenchmark extends StoreBenchmark {

    @Param({"100", "1000", "4096"})
    public int valueSize;

    /** fillrandom's order: each key once, in a seeded random order (db_bench draws with repetition). */
    private int[] order;
    private int ops;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected boolean countsWrites() {
        return true;
    }

    @Override
    protected boolean freshStorePerIteration() {
        return true;
    }

    @Override
    protected void beforeIteration(IterationParams params) {
        if (order == null) {
            order = Keys.permutation(entries, 0x5eed_0002L);
        }
        ops = isWarmup(params) ? warmupOps(entries) : entries;
    }

    @Benchmark
    public void fillseq(WriteCounters counters) {
        for (int i = 0; i < ops; i++) {
            db.put(Keys.key(i), values.get(i), false);
        }
        db.flush();
        recordWrites(counters, (long) ops * (Keys.KEY_SIZE + valueSize));
    }

    @Benchmark
    public void fillrandom(WriteCounters counters) {
        for (int i = 0; i < ops; i++) {
            int k = order[i];
            db.put(Keys.key(k), values.get(k), false);
        }
        db.flush();
        recordWrites(counters, (long) ops * (Keys.KEY_SIZE + valueSize));
    }
}
