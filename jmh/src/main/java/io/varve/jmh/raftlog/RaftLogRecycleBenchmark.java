package io.varve.jmh.raftlog;

import io.varve.raftlog.EngineStats;
import io.varve.raftlog.LogBatch;
import io.varve.raftlog.RaftLogEngine;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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

/**
 * One synced writer in steady state, with purged files written over ({@code recycledFiles} 4) or deleted and
 * new files created ({@code recycledFiles} 0): what file recycling does to a synced write, whose cost is
 * mostly its fdatasync. {@link RaftLogAppendBenchmark} cannot show it: its synced trials end long before a
 * 64 MiB file fills and is purged. Here files are 4 MiB, 100 groups each keep their last 16 to 32 entries
 * (about 3 MiB live at 1 KiB), purge runs every 256 writes, and the setup writes 24 MiB the same way first,
 * so the measured writes go into files that were written over (or created, for 0) from the start.
 *
 * <p>The write has {@link RaftLogAppendBenchmark}'s shape: one entry for each of 4 groups (round robin) and
 * each group's 24-byte hard state. Compare the two {@code recycledFiles} values of one run only.
 *
 * <p>{@code java -jar jmh/target/benchmarks.jar RaftLogRecycleBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class RaftLogRecycleBenchmark {
    static final int GROUPS = 100;
    static final int GROUPS_PER_WRITE = 4;
    static final int KEEP = 16;
    static final int PURGE_EVERY = 256;
    static final byte[] HARD_STATE_KEY = {'h', 's'};

    @Param({"0", "4"})
    public int recycledFiles;

    @Param({"1024"})
    public int entrySize;

    Path dir;
    RaftLogEngine engine;
    final long[] last = new long[GROUPS];
    final byte[] hardState = new byte[24];
    byte[][] pool;
    final LogBatch batch = new LogBatch();
    int next;
    long writes;

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = BenchDirs.create("raftlog-recycle");
        engine = RaftLogEngine.open(dir, RaftLogOptions.defaults().withTargetFileSize(4L << 20)
                .withRecycledFiles(recycledFiles));
        Random random = new Random(1);
        pool = new byte[64][entrySize];
        for (byte[] e : pool) {
            random.nextBytes(e);
        }
        long bytesPerWrite = (long) GROUPS_PER_WRITE * (entrySize + hardState.length);
        for (long w = (24L << 20) / bytesPerWrite; w > 0; w--) {
            write(false);
        }
        writes = 0;
    }

    @Benchmark
    public void syncedAppend() throws IOException {
        write(true);
    }

    private void write(boolean sync) throws IOException {
        batch.clear();
        long[] compact = new long[GROUPS_PER_WRITE];
        int[] groups = new int[GROUPS_PER_WRITE];
        for (int i = 0; i < GROUPS_PER_WRITE; i++) {
            int g = next;
            next = (next + 1) % GROUPS;
            long index = ++last[g];
            batch.addEntries(g, index, List.of(pool[(int) (writes + i) & (pool.length - 1)]));
            batch.put(g, HARD_STATE_KEY, hardState);
            groups[i] = g;
            compact[i] = index % (2L * KEEP) == 0 ? index - KEEP : -1;
        }
        engine.write(batch, sync);
        for (int i = 0; i < GROUPS_PER_WRITE; i++) {
            if (compact[i] >= 0) {
                engine.compactTo(groups[i], compact[i]);
            }
        }
        if (++writes % PURGE_EVERY == 0) {
            for (long g : engine.purgeExpiredFiles()) {
                engine.compactTo(g, Math.max(0, last[(int) g] - KEEP));
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        EngineStats s = engine.stats();
        System.out.printf("%n[raftlog-recycle recycledFiles=%d entrySize=%d] %d fdatasyncs, %d files written over "
                + "purged ones, %d files removed by purge%n", recycledFiles, entrySize, s.dataSyncs(),
                s.filesRecycled(), s.filesDeleted());
        engine.close();
        BenchDirs.delete(dir);
    }
}
