package io.varve.jmh;

import io.varve.jmh.data.Keys;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * db_bench's readwhilewriting: the latency distribution (p50/p99/p99.9 from JMH's SampleTime) of random
 * point reads while one background thread overwrites random keys, after a fill, flush and full compaction.
 *
 * <p>The writer is paced to {@code writesPerSec} (0 = as fast as it can) so every engine serves the same write
 * load: with an unthrottled writer a faster-writing engine would be punished with more flush and compaction
 * work competing with its readers on the two cores. The rate the writer actually reached is logged at the
 * end of the trial; if an engine cannot sustain it, that is reported there.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ReadWhileWritingBenchmark extends StoreBenchmark {

    @Param({"100"})
    public int valueSize;

    @Param({"20000"})
    public int writesPerSec;

    private Thread writer;
    private volatile boolean stopWriter;
    private volatile Throwable writerFailure;
    private volatile long written;
    private long writerStart;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(entries);
        stopWriter = false;
        writer = Thread.ofPlatform().name("bench-writer").daemon().start(this::writeLoop);
    }

    private void writeLoop() {
        SplittableRandom random = new SplittableRandom(0x5eed_0004L);
        writerStart = System.nanoTime();
        long n = 0;
        try {
            while (!stopWriter) {
                long due = writesPerSec <= 0 ? n + 64
                        : (System.nanoTime() - writerStart) * writesPerSec / 1_000_000_000L;
                if (n >= due) {
                    LockSupport.parkNanos(100_000); // pacing in ~0.1 ms bursts
                    continue;
                }
                for (; n < due && !stopWriter; n++) {
                    int k = random.nextInt(entries);
                    db.put(Keys.key(k), values.get(n), false);
                }
                written = n;
            }
        } catch (Throwable t) {
            writerFailure = t;
        }
    }

    @Override
    protected void afterIteration() {
        if (writerFailure != null) {
            throw new IllegalStateException("background writer failed", writerFailure);
        }
    }

    @Override
    protected void beforeClose() {
        if (writer == null) {
            return; // the load failed before the writer started
        }
        stopWriter = true;
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        double seconds = (System.nanoTime() - writerStart) / 1e9;
        log("background writer: %,d writes in %.1f s = %,.0f/s (target %s)", written, seconds, written / seconds,
                writesPerSec <= 0 ? "unlimited" : String.format("%,d/s", writesPerSec));
        writer = null;
    }

    @Benchmark
    public int readwhilewriting(Worker w) {
        Keys.write(w.random.nextInt(entries), w.key);
        int length = db.get(w.key, w.valueOut);
        if (length < 0) {
            throw new IllegalStateException(store + " lost a loaded key");
        }
        return length;
    }
}
