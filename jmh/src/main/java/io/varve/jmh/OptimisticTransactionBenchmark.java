package io.varve.jmh;

import io.varve.jmh.data.Keys;
import io.varve.jmh.store.KvTransaction;
import io.varve.jmh.store.StoreSettings;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Optimistic read-modify-write transactions of 4 distinct random keys (for each: getForUpdate, then put of
 * the value with its first 8 bytes incremented; then commit), at 1, 8 and 32 threads, over {@link #keySpace}
 * loaded keys: a large key space almost never conflicts, 16 keys conflict constantly. Varve's optimistic
 * {@code Transaction} against RocksDB's {@code OptimisticTransactionDB}; run with {@code -p store=varve,rocksdb}.
 *
 * <p>The score is attempted transactions per second; the {@link Outcomes} counters split them into
 * {@code commits} and {@code aborts} (per second, JMH's {@code EVENTS} counters), so the abort rate is
 * aborts / (commits + aborts). An aborted transaction is not retried: the next invocation draws new keys.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class OptimisticTransactionBenchmark extends StoreBenchmark {

    private static final int KEYS_PER_TRANSACTION = 4;

    @Param({"100"})
    public int valueSize;

    /** How many keys the transactions draw from (all loaded before the trial). */
    @Param({"1000000", "16"})
    public int keySpace;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected StoreSettings settings() {
        return StoreSettings.defaults().withOptimisticTransactions(true);
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(keySpace);
    }

    /** Outcomes of the invocations, reported beside the score as rates. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Outcomes {
        public long commits;
        public long aborts;

        @Setup(Level.Iteration)
        public void reset() {
            commits = 0;
            aborts = 0;
        }
    }

    @Benchmark
    @Threads(1)
    public boolean rmw4_t1(Worker w, Outcomes outcomes) {
        return transaction(w, outcomes);
    }

    @Benchmark
    @Threads(8)
    public boolean rmw4_t8(Worker w, Outcomes outcomes) {
        return transaction(w, outcomes);
    }

    @Benchmark
    @Threads(32)
    public boolean rmw4_t32(Worker w, Outcomes outcomes) {
        return transaction(w, outcomes);
    }

    private boolean transaction(Worker w, Outcomes outcomes) {
        int[] indexes = distinctKeys(w);
        boolean committed;
        try (KvTransaction txn = db.beginOptimisticTransaction()) {
            for (int index : indexes) {
                byte[] key = Keys.key(index);
                byte[] value = txn.getForUpdate(key);
                txn.put(key, incremented(value != null ? value : values.get(index)));
            }
            committed = txn.commit();
        }
        if (committed) {
            outcomes.commits++;
        } else {
            outcomes.aborts++;
        }
        return committed;
    }

    private int[] distinctKeys(Worker w) {
        int[] indexes = new int[KEYS_PER_TRANSACTION];
        for (int i = 0; i < indexes.length; i++) {
            int candidate;
            do {
                candidate = w.random.nextInt(keySpace);
            } while (contains(indexes, i, candidate));
            indexes[i] = candidate;
        }
        return indexes;
    }

    private static boolean contains(int[] indexes, int count, int candidate) {
        for (int i = 0; i < count; i++) {
            if (indexes[i] == candidate) {
                return true;
            }
        }
        return false;
    }

    /** A copy of {@code value} whose first 8 bytes, read as a little-endian counter, are one higher. */
    private static byte[] incremented(byte[] value) {
        byte[] next = Arrays.copyOf(value, value.length);
        for (int i = 0; i < Math.min(8, next.length); i++) {
            if (++next[i] != 0) {
                break;
            }
        }
        return next;
    }
}
