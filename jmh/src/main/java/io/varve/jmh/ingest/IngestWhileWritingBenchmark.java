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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Seed 001 (issue 5): foreground put latency (SampleTime: p99, p99.9, p99.99, max) while SST files are
 * ingested again and again, against the same writers with no ingestion.
 *
 * <p>Writers ({@code @Threads}) put random keys {@code w...}, each paced to {@code writesPerSec} (the wait is
 * in a per-invocation setup, outside the measured time), so the database is steadily loaded rather than
 * saturated and a pause shows as a latency outlier instead of vanishing in a backlog. One background thread
 * does, {@code ingestsPerSec} times a second, what moving a region in does: it writes the region's file with
 * {@code SstFileWriter} ({@code keysPerFile} keys in a key range of its own, after the writers' keys), with
 * {@code regionWritten} puts one key into that range (data left there before: it forces a flush, which is
 * what made RocksDB's in-stall flush hurt), then ingests the file, moving it (a hard link). {@code mode}:
 * <ul>
 *   <li>{@code none}: the same file writing, put and (with {@code regionWritten}) {@code flush()}, but no
 *       ingestion: the baseline, so the ratio isolates what ingestion itself adds;</li>
 *   <li>{@code blockingFlush}: {@code ingestExternalFiles} with the defaults (it flushes by itself, without
 *       pausing writes; writes are held only while the tables are installed);</li>
 *   <li>{@code flushRetry}: {@code ingestExternalFilesWithFlushRetry}, TiKV's sequence;</li>
 *   <li>{@code allowWrite}: {@code allowWrite = true}, under the range latch; writes are never held.</li>
 * </ul>
 * At the end of each trial the number of rounds the background thread completed is printed.
 *
 * <p>Because the pacing is an invocation-level setup, JMH counts only the time spent inside {@code put} toward
 * an iteration's length: an iteration of "1 s" lasts as long as the writers need to spend one second in
 * {@code put}, several seconds of wall time. The ratio of ingestions to writes stays fixed by the two rates.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 3)
@Threads(2)
public class IngestWhileWritingBenchmark {

    @Param({"none", "blockingFlush", "flushRetry", "allowWrite"})
    public String mode;

    @Param({"false", "true"})
    public boolean regionWritten;

    @Param({"10"})
    public int ingestsPerSec;

    @Param({"2000"})
    public int keysPerFile;

    /** Per writer thread. */
    @Param({"2000"})
    public int writesPerSec;

    @Param({"100"})
    public int valueSize;

    @Param({"32"})
    public int memtableMiB;

    private Path dir;
    private Path external;
    private Db db;
    private byte[] value;
    private Thread ingester;
    private volatile boolean stop;
    private volatile Throwable ingesterFailure;
    private volatile long rounds;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = BenchDirs.fresh("ingest-db");
        external = BenchDirs.fresh("ingest-ext");
        value = new byte[valueSize];
        new SplittableRandom(1).nextBytes(value);
        db = Db.open(dir, Options.defaults().withWriteBufferSize((long) memtableMiB << 20));
        stop = false;
        ingester = Thread.ofPlatform().name("bench-ingester").daemon().start(this::ingestLoop);
    }

    /** Region keys sort after every writer key and after every earlier region's. */
    private static byte[] regionKey(long region, int k, String suffix) {
        return String.format("x%08d-%06d%s", region, k, suffix).getBytes(StandardCharsets.US_ASCII);
    }

    private void ingestLoop() {
        long start = System.nanoTime();
        long n = 0;
        try {
            while (!stop) {
                long wait = start + n * 1_000_000_000L / ingestsPerSec - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                    continue;
                }
                Path file = external.resolve("region-" + n + ".sst");
                try (SstFileWriter writer = new SstFileWriter(file, TableOptions.defaults())) {
                    for (int k = 0; k < keysPerFile; k++) {
                        writer.put(regionKey(n, k, ""), value);
                    }
                    writer.finish();
                }
                if (regionWritten) {
                    db.put(WriteOptions.DEFAULT, regionKey(n, keysPerFile / 2, "x"), value);
                }
                IngestOptions move = IngestOptions.defaults().withMoveFiles(true);
                switch (mode) {
                    case "none" -> {
                        if (regionWritten) {
                            db.flush();
                        }
                        Files.delete(file);
                    }
                    case "blockingFlush" -> db.ingestExternalFiles(List.of(file), move);
                    case "flushRetry" -> db.ingestExternalFilesWithFlushRetry(db.defaultColumnFamily(),
                            List.of(file), move);
                    case "allowWrite" -> db.ingestExternalFiles(List.of(file), move.withAllowWrite(true));
                    default -> throw new IllegalArgumentException("unknown mode " + mode);
                }
                rounds = ++n;
            }
        } catch (Throwable t) {
            ingesterFailure = t;
        }
    }

    @State(Scope.Thread)
    public static class Writer {
        final SplittableRandom random = new SplittableRandom(Thread.currentThread().threadId());
        final byte[] key = new byte[16];
        long start;
        long count;

        /** Waits until this writer's next put is due; not part of the measured time. */
        @Setup(Level.Invocation)
        public void pace(IngestWhileWritingBenchmark bench) {
            if (start == 0) {
                start = System.nanoTime();
            }
            long due = start + count++ * 1_000_000_000L / bench.writesPerSec;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
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
        System.out.printf("%n[ingest] mode=%s regionWritten=%s: %d rounds (%s) in the trial%n", mode, regionWritten,
                rounds, mode.equals("none") ? "no ingestion" : "ingestions");
        db.close();
        BenchDirs.delete(dir);
        BenchDirs.delete(external);
    }
}
