package io.varve.jmh.ingest;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteOptions;
import io.varve.core.ingest.CpuPriority;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.metrics.EngineStatistics;
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
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Foreground put latency (p99, p99.9, p99.99, max) while SST files are ingested again and
 * again, against the same writers with no ingestion.
 *
 * <p>One invocation is one scenario of fixed wall-clock length; what it measures is printed, not JMH's score
 * (the single-shot time is just the scenario's length). {@code writers} threads put random keys {@code w...},
 * each paced to {@code writesPerSec}, so the database is steadily loaded rather than saturated and a pause
 * shows as outliers instead of vanishing in a backlog; every put's duration is recorded (no sampling) and
 * exact percentiles are printed as a line starting with {@code [ingest-latency]}. (A put delayed by a pause
 * is counted once; puts due meanwhile start late and run back to back — the same in every mode.)
 *
 * <p>Meanwhile one thread does, {@code ingestsPerSec} times a second, what moving a region in does: it writes
 * the region's file with {@code SstFileWriter} ({@code keysPerFile} keys in a key range of its own, after the
 * writers' keys); with {@code regionWritten} it puts one key into that range first (data left there before: it
 * forces a flush, which is what made RocksDB's in-stall flush hurt); then it ingests the file, moving it (a
 * hard link). {@code mode}:
 * <ul>
 *   <li>{@code none}: the same file writing, put and (with {@code regionWritten}) {@code flush()}, but no
 *       ingestion: the baseline, so the ratio isolates what ingestion itself adds;</li>
 *   <li>{@code blockingFlush}: {@code ingestExternalFiles} with the defaults (it flushes by itself, without
 *       pausing writes; writes are held only while the tables are installed);</li>
 *   <li>{@code flushRetry}: {@code ingestExternalFilesWithFlushRetry}, TiKV's sequence;</li>
 *   <li>{@code allowWrite}: {@code allowWrite = true}, under the range latch; writes are never held.</li>
 * </ul>
 *
 * <p>{@code ingestPriority} sets {@code Options.withIngestCpuPriority}: at {@code idle} the ingestion's file
 * work runs on an engine thread at {@code SCHED_IDLE} (the setting that meets the goal,
 * docs/benchmarks.md); it changes nothing in mode {@code none}. The fork runs with
 * {@code --enable-native-access=ALL-UNNAMED} so that lowering a thread prints no warning.
 *
 * <p>The system property {@code varve.bench.ingesterPriority} (a Java priority, default normal) sets the
 * ingesting thread's priority. Linux applies it only with {@code -XX:ThreadPriorityPolicy=1} (as root); with
 * {@code -XX:JavaPriority1_To_OSPriority=19}, priority 1 runs the thread at nice 19. That is how the ingesting
 * thread's CPU was shown to cause the remaining outliers (docs/benchmarks.md).
 *
 * <p>The system property {@code varve.bench.slowPutMicros} (pass it with {@code -jvmArgsAppend}) prints every
 * recorded put slower than that many microseconds as {@code [slow-put] start end writer}, in
 * {@code System.nanoTime}: the clock {@code perf record -k mono} uses, so {@code jmh/bench/slow-puts.py} can
 * show what ran on the CPUs while each of those puts waited.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class IngestWhileWritingBenchmark {

    @Param({"none", "blockingFlush", "flushRetry", "allowWrite"})
    public String mode;

    @Param({"false", "true"})
    public boolean regionWritten;

    @Param({"10"})
    public int ingestsPerSec;

    @Param({"2000"})
    public int keysPerFile;

    @Param({"2"})
    public int writers;

    /** Per writer thread. */
    @Param({"5000"})
    public int writesPerSec;

    /** Unrecorded time first (JIT, first flushes), then {@code seconds} recorded. */
    @Param({"5"})
    public int warmupSeconds;

    @Param({"30"})
    public int seconds;

    @Param({"100"})
    public int valueSize;

    @Param({"32"})
    public int memtableMiB;

    /** {@code Options.withIngestCpuPriority}: normal, low or idle (lower case). */
    @Param({"normal"})
    public String ingestPriority;

    private Path dir;
    private Path external;
    private Db db;
    private byte[] value;
    private volatile boolean stop;
    private volatile boolean recording;
    private volatile Throwable failure;
    private volatile long rounds;
    private final long slowPutNanos = Long.getLong("varve.bench.slowPutMicros", -1) * 1000;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = BenchDirs.fresh("ingest-db");
        external = BenchDirs.fresh("ingest-ext");
        value = new byte[valueSize];
        new SplittableRandom(1).nextBytes(value);
        db = Db.open(dir, Options.defaults().withWriteBufferSize((long) memtableMiB << 20)
                .withIngestCpuPriority(CpuPriority.valueOf(ingestPriority.toUpperCase(Locale.ROOT))));
    }

    @Benchmark
    public long scenario() throws Exception {
        stop = false;
        Thread ingester = Thread.ofPlatform().name("bench-ingester")
                .priority(Integer.getInteger("varve.bench.ingesterPriority", Thread.NORM_PRIORITY))
                .start(this::ingestLoop);
        List<long[]> latencies = new ArrayList<>();
        List<int[]> counts = new ArrayList<>();
        List<List<long[]>> slowPuts = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < writers; t++) {
            long[] recorded = new long[(seconds + 5) * writesPerSec];
            int[] count = new int[1];
            List<long[]> slow = new ArrayList<>();
            latencies.add(recorded);
            counts.add(count);
            slowPuts.add(slow);
            int id = t;
            threads.add(Thread.ofPlatform().name("bench-writer-" + t)
                    .start(() -> writeLoop(id, recorded, count, slow)));
        }
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(warmupSeconds));
        long roundsBefore = rounds;
        recording = true;
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(seconds));
        recording = false;
        long roundsDuring = rounds - roundsBefore;
        stop = true;
        for (Thread t : threads) {
            t.join();
        }
        ingester.join();
        if (failure != null) {
            throw new IllegalStateException("scenario failed", failure);
        }
        int total = counts.stream().mapToInt(c -> c[0]).sum();
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < writers; t++) {
            System.arraycopy(latencies.get(t), 0, all, at, counts.get(t)[0]);
            at += counts.get(t)[0];
        }
        Arrays.sort(all);
        System.out.printf(Locale.ROOT, "%n[ingest-latency] mode=%s regionWritten=%s puts=%d rounds=%d "
                        + "p50=%.1f p99=%.1f p99.9=%.1f p99.99=%.1f max=%.1f (us)%n", mode, regionWritten, total,
                roundsDuring, micros(all, 0.50), micros(all, 0.99), micros(all, 0.999), micros(all, 0.9999),
                all.length == 0 ? 0 : all[all.length - 1] / 1000.0);
        for (int t = 0; t < writers; t++) {
            for (long[] put : slowPuts.get(t)) {
                System.out.println("[slow-put] " + put[0] + " " + put[1] + " " + t);
            }
        }
        // The engine's background work over the whole scenario: ingested tables that land where they overlap
        // something cause compactions, which take CPU from the writers like any other thread.
        EngineStatistics stats = db.statistics();
        System.out.printf(Locale.ROOT, "[ingest-engine] flushes=%d compactions=%d compactionMiBWritten=%.1f "
                        + "compactionSeconds=%.2f writeStallMs=%.1f level0Tables=%d%n", stats.flushes(),
                stats.compactions(), stats.compactionBytesWritten() / 1048576.0, stats.compactionNanos() / 1e9,
                stats.writeStallNanos() / 1e6, stats.level0Tables());
        return total;
    }

    private static double micros(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1000.0;
    }

    private void writeLoop(int id, long[] recorded, int[] count, List<long[]> slow) {
        SplittableRandom random = new SplittableRandom(id + 1);
        byte[] key = new byte[16];
        long start = System.nanoTime();
        long n = 0;
        try {
            while (!stop) {
                long wait = start + n * 1_000_000_000L / writesPerSec - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                    continue;
                }
                long k = random.nextLong(10_000_000L);
                key[0] = 'w';
                for (int i = 15; i >= 1; i--) {
                    key[i] = (byte) ('0' + k % 10);
                    k /= 10;
                }
                long before = System.nanoTime();
                db.put(key, value);
                long took = System.nanoTime() - before;
                if (recording && count[0] < recorded.length) {
                    recorded[count[0]++] = took;
                    if (slowPutNanos >= 0 && took > slowPutNanos) {
                        slow.add(new long[] {before, before + took});
                    }
                }
                n++;
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    /**
     * Region keys sort after every writer key and after every earlier region's: "x", the region in 8 digits,
     * "-", the key in 6 digits, then the suffix. Formatted by hand because {@code String.format} was 31% of
     * the ingesting thread's CPU, in every mode alike, on a machine whose two cores the writers share.
     */
    private static byte[] regionKey(long region, int k, String suffix) {
        byte[] key = new byte[16 + suffix.length()];
        key[0] = 'x';
        digits(key, 1, 8, region);
        key[9] = '-';
        digits(key, 10, 6, k);
        for (int i = 0; i < suffix.length(); i++) {
            key[16 + i] = (byte) suffix.charAt(i);
        }
        return key;
    }

    private static void digits(byte[] into, int from, int count, long value) {
        for (int i = from + count - 1; i >= from; i--) {
            into[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
    }

    private void ingestLoop() {
        long start = System.nanoTime();
        long n = 0;
        try {
            while (!stop) {
                long wait = start + n * 1_000_000_000L / ingestsPerSec - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(Math.min(wait, 10_000_000L));
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
            failure = t;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        db.close();
        BenchDirs.delete(dir);
        BenchDirs.delete(external);
    }
}
