package io.varve.jmh;

import io.varve.jmh.data.Keys;
import io.varve.jmh.store.KvBatch;
import io.varve.jmh.store.KvStore;
import io.varve.jmh.store.StoreSettings;
import io.varve.jmh.store.Stores;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.util.concurrent.TimeUnit;

/**
 * Ordered vs unordered writes under contention: 32 threads each committing batches of 8 random puts (WAL on,
 * not synced), measured in puts per second. {@code unordered} turns on RocksDB's unordered_write and Varve's
 * unorderedWrite, which publish a batch as soon as it is logged instead of in log order. LevelDB-java has no
 * such mode: its "unordered" trial runs its ordered path and the report leaves it out of the comparison.
 *
 * <p>Each iteration starts from a fresh store: throughput here is high, and a store kept for the trial would
 * grow by gigabytes (all in memtables for Varve until tables land).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(UnorderedWriteBenchmark.THREADS)
public class UnorderedWriteBenchmark extends StoreBenchmark {

    static final int THREADS = 32;
    static final int BATCH = 8;

    @Param({"100"})
    public int valueSize;

    @Param({"ordered", "unordered"})
    public String writeMode;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected boolean freshStorePerIteration() {
        return true;
    }

    @Override
    protected StoreSettings settings() {
        boolean unordered = switch (writeMode) {
            case "ordered" -> false;
            case "unordered" -> true;
            default -> throw new IllegalArgumentException("writeMode must be ordered or unordered: " + writeMode);
        };
        if (unordered && store.equals(Stores.LEVELDB)) {
            log("LevelDB-java has no unordered write mode; this trial runs its ordered path");
        }
        return StoreSettings.defaults().withUnorderedWrite(unordered);
    }

    /** A thread's reusable batch, remade when the store is (each iteration). */
    @State(Scope.Thread)
    public static class BatchHolder {
        KvStore owner;
        KvBatch batch;

        KvBatch batch(KvStore db) {
            if (owner != db) {
                close();
                batch = db.newBatch();
                owner = db;
            }
            return batch;
        }

        @TearDown(Level.Iteration)
        public void close() {
            if (batch != null) {
                batch.close(); // idempotent, also if the store already closed it
                batch = null;
                owner = null;
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void batch8(BatchHolder holder, Worker w) {
        KvBatch batch = holder.batch(db);
        batch.clear();
        for (int i = 0; i < BATCH; i++) {
            int k = w.random.nextInt(entries);
            batch.put(Keys.key(k), values.get(k));
        }
        db.write(batch, false);
    }
}
