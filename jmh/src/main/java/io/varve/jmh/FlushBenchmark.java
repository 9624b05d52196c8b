package io.varve.jmh;

import io.varve.base.fs.DiskFileSystem;
import io.varve.core.internal.flush.MemtableFlush;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.sst.TableOptions;
import io.varve.jmh.data.BenchDirs;
import io.varve.jmh.data.Keys;
import io.varve.jmh.data.Values;
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
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The flush of one full memtable to a level-0 table, alone: each invocation is handed a memtable filled
 * outside the measured time (keys and values as the fills write them, in random or ascending order) and
 * times {@code MemtableFlush.write} — iterating the skiplist, building and compressing blocks, the filter,
 * writing and syncing the file — with the table options the db_bench-style suite gives level 0 (4 KiB
 * blocks, 10 bloom bits per key, LZ4 unless {@code -Dvarve.bench.level0Compression=false}).
 *
 * <p>This is the part of a fill shot that decides whether a writer stalls on a full immutable memtable, so
 * it is the benchmark to profile ({@code -prof jfr}) and to A/B a flush mechanism with. The file is written
 * under {@code -Dvarve.bench.dir} (a real disk, or the sync measures nothing) and deleted after each shot.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3)
@Measurement(iterations = 5)
public class FlushBenchmark {

    /** The memtable's capacity: entries are added until the next one does not fit. */
    @Param({"64"})
    public int memtableMiB;

    @Param({"100", "1000"})
    public int valueSize;

    /** {@code random}: the arena holds nodes in arrival order, so the flush's walk jumps; {@code seq}: in key order. */
    @Param({"random", "seq"})
    public String order;

    /** Whether a second thread compresses and writes the blocks while the first walks the memtable. */
    @Param({"true", "false"})
    public boolean pipelined;

    private Path dir;
    private Values values;
    private TableOptions options;
    private Memtable memtable;
    private long fileNumber;

    @Setup(Level.Trial)
    public void setUpTrial() {
        dir = BenchDirs.fresh("flush");
        values = new Values(valueSize, 301);
        boolean level0Compression = Boolean.parseBoolean(
                System.getProperty("varve.bench.level0Compression", "true"));
        options = TableOptions.defaults().withBlockSize(4096).withBloomBitsPerKey(10)
                .withCompressionPerLevel(level0Compression, true).forLevel(0);
    }

    @Setup(Level.Invocation)
    public void fill() {
        memtable = new Memtable((long) memtableMiB << 20);
        // Enough indexes for any memtable of this size: each entry takes more than its key and value.
        int capacityEntries = (int) (((long) memtableMiB << 20) / (Keys.KEY_SIZE + valueSize)) + 1;
        int[] indexes = "seq".equals(order) ? null : Keys.permutation(capacityEntries, 17);
        byte[] key = new byte[Keys.KEY_SIZE];
        MemorySegment keySegment = MemorySegment.ofArray(key);
        for (int n = 0; n < capacityEntries; n++) {
            int index = indexes == null ? n : indexes[n];
            Keys.write(index, key);
            if (!memtable.add(keySegment, InternalKey.trailer(n + 1L, ValueKind.PUT),
                    MemorySegment.ofArray(values.get(n)))) {
                break;
            }
        }
    }

    @Benchmark
    public TableMeta flush() throws IOException {
        long number = ++fileNumber;
        return MemtableFlush.write(DiskFileSystem.INSTANCE, dir.resolve(number + ".sst"), number, memtable, options,
                file -> file, pipelined);
    }

    @TearDown(Level.Invocation)
    public void release() throws IOException {
        memtable.release();
        memtable = null;
        Files.deleteIfExists(dir.resolve(fileNumber + ".sst"));
    }

    @TearDown(Level.Trial)
    public void tearDownTrial() {
        BenchDirs.delete(dir);
    }
}
