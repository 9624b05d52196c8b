package io.varve.jmh;

import io.varve.jmh.data.DataSize;
import io.varve.jmh.data.Keys;
import io.varve.jmh.harness.ClosedLoopCallers;
import io.varve.jmh.harness.ClosedLoopCallers.Driver;
import io.varve.jmh.store.StoreSettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.IterationParams;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many callers on one embedded engine, the JVM version of an RPC server in front of it: {@code callers}
 * concurrent clients, each issuing one operation after another (90% point reads of uniformly random loaded
 * keys, 10% overwrites of random keys, no sync), driven as platform threads, as requests queued to a fixed
 * pool, or as virtual threads (see {@link ClosedLoopCallers}).
 *
 * <p>The block cache is an eighth of the raw data, so a good share of the reads misses it and reads and
 * decompresses a block: this is where an engine's blocking reads decide whether a virtual thread yields its
 * carrier (Varve reads through the JDK) or holds it (a JNI call blocks the carrier).
 *
 * <p>Measurement: the callers run for the whole iteration (started in its setup, stopped in its teardown);
 * one invocation waits for the callers to complete {@link #OPS_PER_INVOCATION} operations, so JMH's
 * throughput is completed operations per second over the iteration's window. Meant for Varve and RocksDB:
 * run it with {@code -p store=varve,rocksdb}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ManyCallersBenchmark extends StoreBenchmark {

    static final int OPS_PER_INVOCATION = 10_000;

    @Param({"1", "16", "256", "1024", "4096"})
    public int callers;

    @Param({"platform", "pool", "virtual"})
    public String driver;

    @Param({"100"})
    public int valueSize;

    private ClosedLoopCallers running;
    /** Write sequence across callers, choosing the value of each overwrite. */
    private final AtomicLong writes = new AtomicLong();

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected StoreSettings settings() {
        return StoreSettings.defaults().withBlockCacheBytes(Math.max(1L << 20,
                DataSize.rawBytes(entries, valueSize) / 8));
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(entries);
    }

    @Override
    protected void beforeIteration(IterationParams params) {
        List<ClosedLoopCallers.Caller> list = new ArrayList<>(callers);
        for (int i = 0; i < callers; i++) {
            list.add(caller(new SplittableRandom(0x5eed_4000L + i)));
        }
        running = new ClosedLoopCallers(Driver.valueOf(driver.toUpperCase(Locale.ROOT)), list);
    }

    private ClosedLoopCallers.Caller caller(SplittableRandom random) {
        byte[] key = new byte[Keys.KEY_SIZE];
        byte[] valueOut = new byte[Math.max(valueSize, 64)];
        return () -> {
            int k = random.nextInt(entries);
            if (random.nextInt(10) == 0) {
                db.put(Keys.key(k), values.get(writes.getAndIncrement()), false);
            } else {
                Keys.write(k, key);
                if (db.get(key, valueOut) < 0) {
                    throw new IllegalStateException(store + " lost a loaded key");
                }
            }
        };
    }

    @Override
    protected void afterIteration() {
        try {
            running.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the callers", e);
        } finally {
            running = null;
        }
    }

    @Override
    protected void beforeClose() {
        if (running != null) { // the trial failed inside an iteration
            afterIteration();
        }
    }

    @Benchmark
    @OperationsPerInvocation(OPS_PER_INVOCATION)
    public long manycallers() {
        running.awaitCompletions(OPS_PER_INVOCATION);
        return running.completed();
    }
}
