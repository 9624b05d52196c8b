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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * db_bench's overwrite: the store is filled once per trial (untimed, then flushed), and each iteration
 * overwrites {@code entries} uniformly random existing keys, single-shot like {@link FillBenchmark} so the
 * amount written is the same for every engine. Its own class because only the 100-byte value size is run by
 * default: the value-size sweep lives in FillBenchmark, where it is cheaper. Secondary results as FillBenchmark's
 * ({@link WriteCounters}); the store lives for the whole trial, so an iteration's bytes include compaction of
 * what earlier iterations wrote: the steady state of a store under overwrites.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 2)
public class OverwriteBenchmark extends StoreBenchmark {

    @Param({"100"})
    public int valueSize;

    private int[] targets;
    private int iteration;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected boolean countsWrites() {
        return true;
    }

    @Override
    protected void afterOpen() {
        load(entries, false);
    }

    @Override
    protected void beforeIteration(IterationParams params) {
        // Drawn before the timed shot, with a seed per iteration: repeatable, and different each time.
        int ops = isWarmup(params) ? warmupOps(entries) : entries;
        SplittableRandom random = new SplittableRandom(0x5eed_0003L + iteration++);
        targets = new int[ops];
        for (int i = 0; i < ops; i++) {
            targets[i] = random.nextInt(entries);
        }
    }

    @Benchmark
    public void overwrite(WriteCounters counters) {
        int[] t = targets;
        for (int i = 0; i < t.length; i++) {
            int k = t[i];
            db.put(Keys.key(k), values.get(k + i), false);
        }
        db.flush(); // the shot pays for its flushes, as FillBenchmark's do
        recordWrites(counters, (long) t.length * (Keys.KEY_SIZE + valueSize));
    }
}
