package io.varve.jmh.raftlog;

import io.varve.jmh.store.StoreSettings;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
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
 * One synced writer in steady state: what recycling purged files does to a synced write, whose cost is
 * mostly its fdatasync. {@link RaftLogAppendBenchmark} cannot show it: its synced trials end long before a
 * 64 MiB file fills and is purged. Here the stores first take 24 MiB of the same writes, unsynced, so that
 * the measured writes go into a log in steady state: for Varve, 4 MiB files of which purged ones are written
 * over ({@code varve-recycling}, 4 kept) or deleted while new ones are created ({@code varve-deleting}).
 * RocksDB (default options, as in {@link RaftLogAppendBenchmark}) appends to its WAL, which it preallocates
 * from the start; 24 MiB stay in its memtable.
 *
 * <p>The write is {@link RaftLogAppendBenchmark}'s: one entry for each of 4 groups (round robin over
 * {@value #GROUPS}) and each group's 24-byte hard state; each group keeps its last {@value #KEEP} to 2 ×
 * {@value #KEEP} entries (about 3 MiB live at 1 KiB) and maintenance (Varve: purge) runs every
 * {@value #MAINTAIN_EVERY} writes. Compare stores of one run only.
 *
 * <p>{@code java -jar jmh/target/benchmarks.jar RaftLogRecycleBenchmark -f 1 -wi 2 -w 2s -i 6 -r 3s}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 6, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class RaftLogRecycleBenchmark {
    static final int GROUPS = 100;
    static final int GROUPS_PER_WRITE = 4;
    static final int KEEP = 16;
    static final int MAINTAIN_EVERY = 256;

    @Param({"varve-deleting", "varve-recycling", "rocksdb"})
    public String store;

    @Param({"128", "1024"})
    public int entrySize;

    Path dir;
    RaftStore raft;
    final long[] last = new long[GROUPS];
    final byte[] hardState = new byte[24];
    byte[][] pool;
    final long[] groups = new long[GROUPS_PER_WRITE];
    final long[] indexes = new long[GROUPS_PER_WRITE];
    final byte[][] entries = new byte[GROUPS_PER_WRITE][];
    int next;
    long writes;

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = BenchDirs.create("raftlog-recycle-" + store);
        RaftLogOptions varve = StoreSettings.raftLogVarveSmallFiles();
        raft = switch (store) {
            case "varve-recycling" -> new VarveRaftStore(dir, varve.withRecycledFiles(4));
            case "varve-deleting" -> new VarveRaftStore(dir, varve.withRecycledFiles(0));
            default -> BenchDirs.open(store, dir);
        };
        Random random = new Random(1);
        pool = new byte[64][entrySize];
        for (byte[] e : pool) {
            random.nextBytes(e);
        }
        long bytesPerWrite = (long) GROUPS_PER_WRITE * (entrySize + hardState.length);
        for (long w = (24L << 20) / bytesPerWrite; w > 0; w--) {
            write(false);
        }
    }

    @Benchmark
    public void syncedAppend() throws IOException {
        write(true);
    }

    private void write(boolean sync) throws IOException {
        for (int i = 0; i < GROUPS_PER_WRITE; i++) {
            int g = next;
            next = (next + 1) % GROUPS;
            groups[i] = g;
            indexes[i] = ++last[g];
            entries[i] = pool[(int) (writes + i) & (pool.length - 1)];
        }
        raft.append(groups, indexes, entries, hardState, sync);
        for (int i = 0; i < GROUPS_PER_WRITE; i++) {
            if (indexes[i] % (2L * KEEP) == 0) {
                raft.compact(groups[i], indexes[i] - KEEP);
            }
        }
        if (++writes % MAINTAIN_EVERY == 0) {
            raft.maintain(last, KEEP);
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        System.out.printf("%n[raftlog-recycle store=%s entrySize=%d] %d writes%s%n", store, entrySize, writes,
                raft.details());
        raft.close();
        BenchDirs.delete(dir);
    }
}
