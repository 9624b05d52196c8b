package io.varve.jmh.raftlog;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Raft log append throughput over 1000 groups, Varve's engine-raftlog against RocksDB used as a raft db.
 *
 * <p>One operation is one atomic write appending one entry to each of {@value #GROUPS_PER_WRITE} groups
 * (round robin over {@value #GROUPS}) plus each group's hard state, synced or not. Like a Raft store, the
 * benchmark garbage-collects each group's log: when a group has twice {@code keep} entries it compacts to its
 * last {@code keep}, where {@code keep} is 128 entries but at most 128 KiB (so at most 256 MiB live over the
 * 1000 groups whatever the entry size); and (Varve) it runs purge every {@value #MAINTAIN_EVERY} writes,
 * compacting the groups it reports.
 *
 * <p>At the end of each trial it prints the bytes written to the device per payload byte (payload = entry
 * and hard-state bytes handed to the store), counted by the store's own accounting (see
 * {@link RaftStore#accounting()}), and the size of the directory.
 *
 * <p>Runs for a while and writes gigabytes at 32 KiB; for a smoke run:
 * {@code java -jar jmh/target/benchmarks.jar RaftLogAppendBenchmark -wi 1 -w 1s -i 2 -r 2s -f 1}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
public class RaftLogAppendBenchmark {
    static final int GROUPS = 1000;
    static final int GROUPS_PER_WRITE = 4;
    static final int MAINTAIN_EVERY = 4096;

    @Param({"128", "1024", "32768"})
    public int entrySize;

    @Param({"true", "false"})
    public boolean sync;

    @Param({"varve", "rocksdb"})
    public String store;

    Path dir;
    RaftStore raft;
    int keep;
    /** Distinct random entries, so no two entries of a batch are alike and nothing compresses. */
    byte[][] pool;
    final byte[] hardState = new byte[24];
    /** Last index per group; each group is appended to by one thread only. */
    final long[] last = new long[GROUPS];
    final AtomicInteger threads = new AtomicInteger();
    final java.util.concurrent.atomic.LongAdder payload = new java.util.concurrent.atomic.LongAdder();
    final java.util.concurrent.atomic.LongAdder writes = new java.util.concurrent.atomic.LongAdder();

    @Setup(Level.Trial)
    public void open() throws IOException {
        BenchDirs.settleDirtyPages();
        dir = BenchDirs.create("raftlog-append-" + store);
        raft = BenchDirs.open(store, dir);
        keep = Math.clamp((128 << 10) / entrySize, 4, 128);
        Random random = new Random(1);
        pool = new byte[64][entrySize];
        for (byte[] e : pool) {
            random.nextBytes(e); // incompressible: no flattering compression ratios
        }
    }

    /** A thread's share of the groups, so concurrent writers never touch the same group. */
    @State(Scope.Thread)
    public static class Cursor {
        int firstGroup;
        int groupCount;
        int next;
        final long[] groups = new long[GROUPS_PER_WRITE];
        final long[] indexes = new long[GROUPS_PER_WRITE];
        final byte[][] entries = new byte[GROUPS_PER_WRITE][];
        int nextEntry;
        /** The shared write count at which this thread (the first one) next runs maintenance. */
        long nextMaintenance = MAINTAIN_EVERY;

        @Setup(Level.Trial)
        public void claim(RaftLogAppendBenchmark bench, BenchmarkParams params) {
            int id = bench.threads.getAndIncrement();
            groupCount = GROUPS / params.getThreads();
            firstGroup = id * groupCount;
        }
    }

    @Benchmark
    public void append(Cursor cursor) throws IOException {
        write(cursor);
    }

    /** Eight writers at once, each on its own eighth of the groups: group commit lets one fsync serve several. */
    @Benchmark
    @Threads(8)
    public void appendEightThreads(Cursor cursor) throws IOException {
        write(cursor);
    }

    private void write(Cursor c) throws IOException {
        for (int i = 0; i < GROUPS_PER_WRITE; i++) {
            int g = c.firstGroup + c.next;
            c.next = (c.next + 1) % c.groupCount;
            c.groups[i] = g;
            c.indexes[i] = ++last[g];
            c.entries[i] = pool[c.nextEntry++ & (pool.length - 1)];
        }
        raft.append(c.groups, c.indexes, c.entries, hardState, sync);
        payload.add((long) GROUPS_PER_WRITE * (entrySize + hardState.length));
        for (int i = 0; i < GROUPS_PER_WRITE; i++) {
            long index = c.indexes[i];
            if (index % (2L * keep) == 0) {
                raft.compact(c.groups[i], index - keep);
            }
        }
        writes.increment();
        // One thread maintains for all, every MAINTAIN_EVERY writes of all threads together. (Waiting for the
        // shared count to be an exact multiple, as before, almost never happened with 8 writers: their
        // purges did not run, so Varve kept and wrote back every file while RocksDB deleted its garbage.)
        if (c.firstGroup == 0 && writes.sum() >= c.nextMaintenance) {
            c.nextMaintenance += MAINTAIN_EVERY;
            raft.maintain(last, keep); // purge compacts reported groups: any thread's, hence the shared array
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        long device = raft.deviceBytesWritten();
        long onDisk = BenchDirs.size(dir);
        System.out.printf("%n[raftlog-append store=%s entrySize=%d sync=%s] %.3f device bytes per payload byte "
                        + "(%d / %d; %s); %d writes; %d MiB on disk at the end%s%n", store, entrySize, sync,
                (double) device / Math.max(1, payload.sum()), device, payload.sum(), raft.accounting(), writes.sum(),
                onDisk >> 20, raft.details());
        raft.close();
        BenchDirs.delete(dir);
        threads.set(0);
    }
}
