package io.varve.jmh.ingest;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteOptions;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import io.varve.jmh.data.BenchDirs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Seed 001 (issue 5): foreground put latency (SampleTime: p99, p99.9, p99.99, max) while SST files are
 * ingested again and again, against the same writers with no ingestion.
 *
 * <p>Writers ({@code @Threads}) put random keys {@code w...}. One background thread does, {@code ingestsPerSec}
 * times a second, what moving a region does: with {@code regionWritten}, one put into the region's key range
 * first (data left there before, which forces a flush: what made RocksDB's in-stall flush hurt), then the
 * ingestion of the region's pre-built file ({@code keysPerFile} keys, copied, so files are reused round robin
 * over {@value #REGIONS} regions disjoint from the writers' keys). {@code mode}:
 * <ul>
 *   <li>{@code none}: no ingestion — the baseline. With {@code regionWritten} it still does the put and a
 *       {@code flush()} at the same pace, so the ratio isolates what ingestion adds to the flush it needs;
 *       without, the writers run alone;</li>
 *   <li>{@code blockingFlush}: {@code ingestExternalFiles} with the defaults (it flushes by itself; writes
 *       are held only while it is installed);</li>
 *   <li>{@code flushRetry}: {@code ingestExternalFilesWithFlushRetry}, TiKV's sequence;</li>
 *   <li>{@code allowWrite}: {@code allowWrite = true}, under the range latch; writes are never held.</li>
 * </ul>
 * At the end of each trial the number of ingestions (or put+flush rounds) done is printed.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 1, time = 5)
@Measurement(iterations = 3, time = 10)
@Threads(2)
public class IngestWhileWritingBenchmark {

    static final int REGIONS = 16;

    @Param({"none", "blockingFlush", "flushRetry", "allowWrite"})
    public String mode;

    @Param({"false", "true"})
    public boolean regionWritten;

    @Param({"10"})
    public int ingestsPerSec;

    @Param({"2000"})
    public int keysPerFile;

    @Param({"100"})
    public int valueSize;

    @Param({"32"})
    public int memtableMiB;

    private Path dir;
    private Path external;
    private Db db;
    private final List<Path> files = new ArrayList<>();
    private byte[] value;
    private Thread ingester;
    private volatile boolean stop;
    private volatile Throwable ingesterFailure;
    private volatile long ingested;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = BenchDirs.fresh("ingest-db");
        external = BenchDirs.fresh("ingest-ext");
        value = new byte[valueSize];
        new SplittableRandom(1).nextBytes(value);
        for (int r = 0; r < REGIONS; r++) {
            Path file = external.resolve("region-" + r + ".sst");
            try (SstFileWriter writer = new SstFileWriter(file, TableOptions.defaults())) {
                for (int k = 0; k < keysPerFile; k++) {
                    writer.put(regionKey(r, k, ""), value);
                }
                writer.finish();
            }
            files.add(file);
        }
        db = Db.open(dir, Options.defaults().withWriteBufferSize((long) memtableMiB << 20));
        stop = false;
        ingester = Thread.ofPlatform().name("bench-ingester").daemon().start(this::ingestLoop);
    }

    private static byte[] regionKey(int region, int k, String suffix) {
        return String.format("r%02d-%06d%s", region, k, suffix).getBytes(StandardCharsets.US_ASCII);
    }

    private void ingestLoop() {
        long start = System.nanoTime();
        long n = 0;
        try {
            while (!stop) {
                long due = start + n * 1_000_000_000L / ingestsPerSec;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                    continue;
                }
                int region = (int) (n % REGIONS);
                if (regionWritten) {
                    db.put(WriteOptions.DEFAULT, regionKey(region, keysPerFile / 2, "x"), value);
                }
                List<Path> file = List.of(files.get(region));
                switch (mode) {
                    case "none" -> {
                        if (regionWritten) {
                            db.flush();
                        }
                    }
                    case "blockingFlush" -> db.ingestExternalFiles(file, IngestOptions.defaults());
                    case "flushRetry" -> db.ingestExternalFilesWithFlushRetry(db.defaultColumnFamily(), file,
                            IngestOptions.defaults());
                    case "allowWrite" -> db.ingestExternalFiles(file, IngestOptions.defaults().withAllowWrite(true));
                    default -> throw new IllegalArgumentException("unknown mode " + mode);
                }
                ingested = ++n;
            }
        } catch (Throwable t) {
            ingesterFailure = t;
        }
    }

    @State(Scope.Thread)
    public static class Writer {
        final SplittableRandom random = new SplittableRandom(Thread.currentThread().threadId());
        final byte[] key = new byte[16];
    }

    @Benchmark
    public void put(Writer w) {
        long k = w.random.nextLong(10_000_000L);
        byte[] key = w.key;
        key[0] = 'w';
        for (int i = 15; i >= 1; i--) {
            key[i] = (byte) ('0' + k % 10);
            k /= 10;
        }
        db.put(key, value);
    }

    @TearDown(Level.Iteration)
    public void checkIngester() {
        if (ingesterFailure != null) {
            throw new IllegalStateException("ingester failed", ingesterFailure);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        stop = true;
        ingester.join();
        long elapsed = ingested;
        System.out.printf("%n[ingest] mode=%s regionWritten=%s: %d %s in the trial%n", mode, regionWritten, elapsed,
                mode.equals("none") ? "rounds without ingestion" : "ingestions");
        db.close();
        BenchDirs.delete(dir);
        BenchDirs.delete(external);
    }
}
