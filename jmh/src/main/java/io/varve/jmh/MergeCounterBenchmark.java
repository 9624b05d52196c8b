package io.varve.jmh;

import io.varve.jmh.data.Keys;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

import java.util.concurrent.TimeUnit;

/**
 * Counter increments: by merge (a write that reads nothing; Varve's 64-bit add operator, RocksDB's built-in
 * uint64add) against the read-modify-write an application does without merges (get, add, put, under a lock
 * striped by key so concurrent increments are not lost). {@link #keySpace} counters of 8 bytes are loaded and
 * compacted first; then every invocation increments a random one. In {@code mergeAndRead} one thread merges
 * while another reads random counters, so the reads pay for resolving operands not yet folded by compaction. Varve and
 * RocksDB only (LevelDB-java has no merge): run with {@code -p store=varve,rocksdb}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MergeCounterBenchmark extends StoreBenchmark {

    private static final byte[] ONE = {1, 0, 0, 0, 0, 0, 0, 0};
    private static final int STRIPES = 256;

    /** How many counters the increments draw from. */
    @Param({"100000"})
    public int keySpace;

    private final Object[] stripes = new Object[STRIPES];

    {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    @Override
    protected int valueSize() {
        return 8;
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(keySpace);
    }

    @Benchmark
    @Threads(1)
    public void merge_t1(Worker w) {
        db.mergeAdd(Keys.key(w.random.nextInt(keySpace)), ONE);
    }

    @Benchmark
    @Threads(8)
    public void merge_t8(Worker w) {
        db.mergeAdd(Keys.key(w.random.nextInt(keySpace)), ONE);
    }

    @Benchmark
    @Threads(1)
    public int readModifyWrite_t1(Worker w) {
        return readModifyWrite(w);
    }

    @Benchmark
    @Threads(8)
    public int readModifyWrite_t8(Worker w) {
        return readModifyWrite(w);
    }

    /** One thread merges, another reads: the reads meet counters with operands not yet folded by compaction. */
    @Benchmark
    @Group("mergeAndRead")
    @GroupThreads(1)
    public void merger(Worker w) {
        db.mergeAdd(Keys.key(w.random.nextInt(keySpace)), ONE);
    }

    @Benchmark
    @Group("mergeAndRead")
    @GroupThreads(1)
    public int reader(Worker w) {
        return db.get(Keys.key(w.random.nextInt(keySpace)), w.valueOut);
    }

    private int readModifyWrite(Worker w) {
        int index = w.random.nextInt(keySpace);
        byte[] key = Keys.key(index);
        synchronized (stripes[index % STRIPES]) {
            int length = db.get(key, w.valueOut);
            long counter = 0;
            for (int i = Math.min(8, Math.max(length, 0)) - 1; i >= 0; i--) {
                counter = counter << 8 | (w.valueOut[i] & 0xFF);
            }
            counter++;
            byte[] next = new byte[8];
            for (int i = 0; i < 8; i++) {
                next[i] = (byte) (counter >>> (8 * i));
            }
            db.put(key, next, false);
            return length;
        }
    }
}
