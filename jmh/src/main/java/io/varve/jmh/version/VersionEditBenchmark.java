package io.varve.jmh.version;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;
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
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The cost of one version edit as the level grows: each edit replaces one table of level 1, chosen at random,
 * by a new table with the same key range (what a compaction of one table does), through
 * {@code VersionSet.logAndApply} — building the version, appending to the (in-memory) manifest, publishing.
 * No readers. Pair with {@code -prof gc} for the garbage per edit; with a flat array per level both grow
 * linearly with {@code tables}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
public class VersionEditBenchmark {

    private static final Path DIR = Path.of("/bench");

    @Param({"1000", "100000", "1000000"})
    public int tables;

    private Reclaimer reclaimer;
    private TableCache tableCache;
    private VersionSet versions;
    /** The file number currently holding each key slot. */
    private long[] numberAt;
    private long nextNumber;
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        reclaimer = new Reclaimer("bench-reclaimer");
        tableCache = new TableCache(fs, VersionEditBenchmark::tablePath, null);
        numberAt = new long[tables];
        VersionEdit initial = new VersionEdit();
        for (int slot = 0; slot < tables; slot++) {
            numberAt[slot] = slot + 1;
            initial.add(1, table(slot, numberAt[slot]));
        }
        nextNumber = tables + 1L;
        Memtable memtable = new Memtable(Memtable.MIN_CAPACITY);
        versions = VersionSet.open(fs, DIR, VersionSet.recover(fs, DIR), initial.logNumber(1), memtable, reclaimer,
                tableCache, VersionEditBenchmark::tablePath, Long.MAX_VALUE / 2);
        memtable.release();
    }

    private static Path tablePath(long number) {
        return DIR.resolve(number + ".sst");
    }

    private static TableMeta table(int slot, long number) {
        byte[] key = String.format("k%09d", slot).getBytes();
        long trailer = InternalKey.trailer(1, ValueKind.PUT);
        return new TableMeta(number, 1000, key, trailer, key, trailer, 1, 1, -1);
    }

    @Benchmark
    public long replaceOneTable() throws IOException {
        int slot = random.nextInt(tables);
        long replacement = nextNumber++;
        VersionEdit edit = new VersionEdit().remove(1, numberAt[slot]).add(1, table(slot, replacement));
        numberAt[slot] = replacement;
        return versions.logAndApply(edit, m -> m).id();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        versions.close();
        reclaimer.close();
        tableCache.close();
    }
}
