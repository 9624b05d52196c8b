package io.varve.jmh.raftlog;

import io.varve.raftlog.EngineStats;
import io.varve.raftlog.RaftLogEngine;
import io.varve.jmh.store.StoreSettings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
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
 * Time to reopen a pre-built store of {@code totalMiB} MiB of entries of {@code entrySize} bytes over
 * {@code groups} groups, written round robin {@value #GROUPS_PER_WRITE} groups per batch (one entry each),
 * unsynced, then closed. The target is 1 GiB in 100 groups, reopened warm (files in the page cache,
 * code compiled: ten warm-up iterations reopen the same store, as the replay loops take several reopens to be
 * fully compiled). Varve rebuilds its index from batch footers;
 * RocksDB opens its LSM (and replays whatever WAL it has). For Varve the index's heap footprint is printed at
 * the end of each trial: its own accounting and, from {@code heapGrowthOfOpen}, the measured growth of the used
 * heap across an open (between two full GCs; that method's time is not a recovery figure).
 *
 * <p>Smoke run: {@code java -jar jmh/target/benchmarks.jar RaftLogRecoveryBenchmark -wi 1 -i 3 -f 1}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
public class RaftLogRecoveryBenchmark {
    static final int GROUPS_PER_WRITE = 10;

    @Param({"varve", "rocksdb"})
    public String store;

    @Param({"100"})
    public int groups;

    @Param({"1024"})
    public int totalMiB;

    @Param({"1024"})
    public int entrySize;

    Path dir;

    @Setup(Level.Trial)
    public void build() throws IOException {
        dir = BenchDirs.create("raftlog-recovery-" + store);
        if (groups % GROUPS_PER_WRITE != 0) {
            throw new IllegalArgumentException("groups must be a multiple of " + GROUPS_PER_WRITE);
        }
        Random random = new Random(2);
        byte[][] pool = new byte[GROUPS_PER_WRITE][entrySize];
        for (byte[] e : pool) {
            random.nextBytes(e); // incompressible, like the append benchmark's entries
        }
        long[] ids = new long[GROUPS_PER_WRITE];
        long[] indexes = new long[GROUPS_PER_WRITE];
        long perGroup = ((long) totalMiB << 20) / ((long) groups * entrySize);
        try (RaftStore raft = BenchDirs.open(store, dir)) {
            for (long index = 1; index <= perGroup; index++) {
                for (int g0 = 0; g0 < groups; g0 += GROUPS_PER_WRITE) {
                    for (int i = 0; i < GROUPS_PER_WRITE; i++) {
                        ids[i] = g0 + i;
                        indexes[i] = index;
                    }
                    raft.append(ids, indexes, pool, new byte[24], false);
                }
            }
        }
        System.out.printf("%n[raftlog-recovery store=%s] %d entries of %d B in %d groups, %d MiB on disk%n", store,
                perGroup * groups, entrySize, groups, BenchDirs.size(dir) >> 20);
    }

    /**
     * CPU time of the whole process (all threads, the collector's included) per reopen: on this shared 2-core
     * machine, wall time says as much about the neighbours' load as about the reopen, CPU time much less.
     */
    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final List<Double> cpuMillis = new ArrayList<>();

    /** Varve's index footprint, from the last measurement; printed at the end of the trial. */
    double indexBytesPerEntry;
    double measuredHeapBytesPerEntry;

    @Benchmark
    public Object reopen() throws IOException {
        long cpu = PROCESS.getProcessCpuTime();
        try (RaftStore raft = BenchDirs.open(store, dir)) {
            if (raft instanceof VarveRaftStore v) {
                EngineStats s = v.engine.stats();
                indexBytesPerEntry = s.indexBytesPerEntry();
                return s;
            }
            return raft;
        } finally {
            cpuMillis.add((PROCESS.getProcessCpuTime() - cpu) / 1e6);
        }
    }

    /** Not timed for its speed: opens once between two full GCs to measure the index's real heap growth. */
    @Benchmark
    public Object heapGrowthOfOpen() throws IOException {
        if (!store.equals("varve")) {
            return null;
        }
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        try (RaftLogEngine engine = RaftLogEngine.open(dir, StoreSettings.raftLogVarve())) {
            System.gc();
            long after = memory.getHeapMemoryUsage().getUsed();
            EngineStats s = engine.stats();
            indexBytesPerEntry = s.indexBytesPerEntry();
            measuredHeapBytesPerEntry = (double) (after - before) / s.indexedEntries();
            return s;
        }
    }

    @TearDown(Level.Trial)
    public void delete() {
        if (!cpuMillis.isEmpty()) {
            // The later half: the reopens after the code is compiled (the measured iterations, when there are as
            // many warm-up iterations as measured ones).
            List<Double> late = new ArrayList<>(cpuMillis.subList(cpuMillis.size() / 2, cpuMillis.size()));
            Collections.sort(late);
            System.out.printf("%n[raftlog-recovery store=%s] process CPU per reopen, later half of %d reopens: "
                    + "median %.0f ms, min %.0f ms%n", store, cpuMillis.size(), late.get(late.size() / 2),
                    late.getFirst());
        }
        if (store.equals("varve")) {
            System.out.printf("%n[raftlog-index groups=%d entrySize=%d] index accounting %.2f heap bytes per entry%s%n",
                    groups, entrySize,
                    indexBytesPerEntry, measuredHeapBytesPerEntry > 0
                            ? String.format("; measured heap growth of an open %.2f bytes per entry",
                                    measuredHeapBytesPerEntry)
                            : "");
        }
        BenchDirs.delete(dir);
    }
}
