package io.varve.jmh;

import io.varve.jmh.data.BenchDirs;
import io.varve.jmh.data.DataSize;
import io.varve.jmh.data.Keys;
import io.varve.jmh.data.Values;
import io.varve.jmh.store.KvBatch;
import io.varve.jmh.store.KvStore;
import io.varve.jmh.store.StoreSettings;
import io.varve.jmh.store.Stores;
import io.varve.jmh.store.WriteStats;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The shared life cycle of every benchmark: the same code runs against each engine named by {@link #store}.
 * A store is opened in a fresh directory — once per trial, or once per iteration for write benchmarks whose
 * data would otherwise grow with the engine's speed — and closed and deleted afterwards. Subclasses add their
 * work through the hooks; they declare no @Setup/@TearDown of their own, so the order is always the one here.
 *
 * <p>Time budget (see docs/benchmarks.md): the annotations below are the full profile; bin/bench --quick
 * overrides iterations, times and {@code keys} on the command line. Two forks, two warm-up and five
 * measured iterations of 5 s: JIT and page-cache state differ between forks more than between iterations,
 * so the second fork is what brings a headline score's error under 10% on a 2-core machine; fewer
 * iterations left JMH's confidence interval wider than the gaps being measured.
 */
@State(Scope.Benchmark)
@Fork(value = 2, jvmArgsAppend = {
        // rocksdbjni loads a native library: allowed up front instead of warned about on JDK 25.
        "--enable-native-access=ALL-UNNAMED",
        // Guava and iq80 Snappy (LevelDB-java) use sun.misc.Unsafe; allowed to keep the output clean.
        "--sun-misc-unsafe-memory-access=allow",
        // One fixed heap for every engine: LevelDB-java keeps its memtables and table indexes on it.
        "-Xms3g", "-Xmx3g"})
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public abstract class StoreBenchmark {

    /** Keeps Varve's INFO lines ("opened ... at sequence 0") out of the JMH output; held so it is not collected. */
    private static final java.util.logging.Logger ENGINE_LOG = java.util.logging.Logger.getLogger("io.varve");

    static {
        ENGINE_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** The engine under test; every workload runs against all three in the same run. */
    @Param({Stores.VARVE, Stores.ROCKSDB, Stores.LEVELDB})
    public String store;

    /**
     * Data-set size in entries at 100-byte values (larger values get fewer entries, same bytes: see
     * {@link DataSize}). 2M entries are about 232 MB raw, several 64 MiB memtables, so tables and compaction
     * take part; the quick profile passes {@code -p keys=100000} together with a small memtable.
     */
    @Param({"2000000"})
    public long keys;

    protected KvStore db;
    protected Values values;
    /** Entries written by a fill or loaded before reads, derived from {@link #keys} and the value size. */
    protected int entries;
    private Path dir;
    /** The store's write statistics when the current iteration started, if it reports them. */
    private WriteStats writesAtStart;
    /** Iterations in the current phase (warm-up or measurement). */
    private int iterationsInPhase;

    /** The value size of this benchmark, from its own {@code valueSize} parameter. */
    protected abstract int valueSize();

    /** Whether each iteration gets a fresh, empty store (else one store serves the whole trial). */
    protected boolean freshStorePerIteration() {
        return false;
    }

    /**
     * Whether the benchmark reports {@link WriteCounters}: then the store counts its writes (RocksDB turns on
     * its Statistics, which costs it a little per write).
     */
    protected boolean countsWrites() {
        return false;
    }

    /** Settings to open the store with; override to change one, e.g. the block cache. */
    protected StoreSettings settings() {
        return StoreSettings.defaults();
    }

    /** Called after the store is opened, untimed: load data, start background threads. */
    protected void afterOpen() {
    }

    /** Called before each iteration, after any per-iteration open. */
    protected void beforeIteration(IterationParams params) {
    }

    /** Called after each iteration, before any per-iteration close. */
    protected void afterIteration() {
    }

    /** Called before the store is closed: stop background threads. */
    protected void beforeClose() {
    }

    @Setup(Level.Trial)
    public final void setUpTrial() {
        entries = DataSize.entries(keys, valueSize());
        values = new Values(valueSize(), 0x5eed_0001L);
        if (!freshStorePerIteration()) {
            open();
        }
    }

    @Setup(Level.Iteration)
    public final void setUpIteration(IterationParams params) {
        if (freshStorePerIteration()) {
            open();
        }
        beforeIteration(params);
        iterationsInPhase = params.getCount();
        writesAtStart = countsWrites() ? db.writeStats() : null;
    }

    /** Call at the end of a counted shot: records the writes since the iteration started. */
    protected void recordWrites(WriteCounters counters, long userBytes) {
        WriteStats now = db.writeStats();
        counters.record(userBytes, now == null || writesAtStart == null ? null : now.since(writesAtStart),
                iterationsInPhase);
    }

    @TearDown(Level.Iteration)
    public final void tearDownIteration() {
        afterIteration();
        if (freshStorePerIteration()) {
            close();
        }
    }

    @TearDown(Level.Trial)
    public final void tearDownTrial() {
        if (!freshStorePerIteration()) {
            close();
        }
    }

    private void open() {
        dir = BenchDirs.fresh(store);
        try {
            StoreSettings settings = settings();
            db = Stores.open(store, dir, countsWrites() ? settings.withRocksStatistics(true) : settings);
            afterOpen();
        } catch (RuntimeException | Error e) {
            // JMH runs no teardown after a failed setup: clean up here so no directory is left behind.
            try {
                close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void close() {
        try {
            beforeClose();
        } finally {
            try {
                if (db != null) {
                    db.close();
                }
            } finally {
                db = null;
                BenchDirs.delete(dir);
                dir = null;
            }
        }
    }

    protected static boolean isWarmup(IterationParams params) {
        return params.getType() == IterationType.WARMUP;
    }

    /**
     * Operations of a single-shot benchmark's warm-up iteration: an eighth of the measured shot, but at least
     * 100,000 (capped at the whole shot) so the JIT has compiled the write path even in the quick profile.
     */
    protected static int warmupOps(int measuredOps) {
        return Math.max(measuredOps / 8, Math.min(measuredOps, 100_000));
    }

    /**
     * Loads keys {@code 0 .. n-1} in order through 1000-entry batches, then flushes and compacts fully: the
     * "after fill + flush + compaction" state of the read benchmarks. Sorted loading is fastest for every
     * engine, and after a full compaction the shape (one sorted run) is the same as after a random fill.
     */
    protected void loadAndCompact(int n) {
        load(n, true);
    }

    /** Loads keys {@code 0 .. n-1} in order through 1000-entry batches, then flushes and optionally compacts. */
    protected void load(int n, boolean compact) {
        long start = System.nanoTime();
        try (KvBatch batch = db.newBatch()) {
            for (int i = 0; i < n; i++) {
                batch.put(Keys.key(i), values.get(i));
                if (batch.count() == 1000 || i == n - 1) {
                    db.write(batch, false);
                    batch.clear();
                }
            }
        }
        long loaded = System.nanoTime();
        db.flush();
        if (compact) {
            db.compact();
        }
        long done = System.nanoTime();
        log("loaded %,d entries in %.1f s, flush%s %.1f s", n, (loaded - start) / 1e9,
                compact ? " + compaction" : "", (done - loaded) / 1e9);
    }

    protected void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[" + store + "] " + format + "%n", args);
    }
}
