package io.varve.jmh.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The operations every benchmark performs, implemented once per engine so that each workload is written
 * once and runs the same code against Varve, RocksDB and LevelDB-java.
 *
 * <p>Fairness rule for the adapters: each operation uses the engine's cheapest public API that does the same
 * work — for example a point read copies the value into a caller's buffer on every engine (Varve and RocksDB
 * do that natively; LevelDB-java has no such call, so it returns a fresh array that the adapter copies).
 *
 * <p>Keys and values passed in must not be modified afterwards: LevelDB-java keeps references to them in its
 * memtable. Implementations are thread-safe like the engines themselves; batches and cursors are not.
 */
public interface KvStore extends AutoCloseable {

    /** "varve", "rocksdb" or "leveldb": the value of the benchmarks' {@code store} parameter. */
    String name();

    void put(byte[] key, byte[] value, boolean sync);

    /**
     * Copies the value of {@code key} into {@code valueBuffer} (a prefix if it is too small).
     *
     * @return the value's full length, or -1 if the key is absent
     */
    int get(byte[] key, byte[] valueBuffer);

    void delete(byte[] key, boolean sync);

    /**
     * The values of {@code keys} in the same order (null where absent), from the engine's batched lookup when
     * it has one (Varve's multiGet, RocksDB's multiGetAsList); otherwise a loop of gets returning fresh arrays.
     */
    default List<byte[]> multiGet(List<byte[]> keys) {
        List<byte[]> values = new ArrayList<>(keys.size());
        byte[] buffer = new byte[8192];
        for (byte[] key : keys) {
            int length = get(key, buffer);
            values.add(length < 0 ? null : Arrays.copyOf(buffer, length));
        }
        return values;
    }

    /**
     * Deletes every key in {@code [begin, end)} with the engine's range deletion. LevelDB-java has none, and
     * emulating it key by key would measure something else, so it throws there.
     */
    default void deleteRange(byte[] begin, byte[] end) {
        throw new UnsupportedOperationException(name() + " has no range deletion");
    }

    /**
     * Creates in {@code target} (which must not exist) an openable copy of the store at one point, with the
     * engine's checkpoint (Varve's {@code Db.checkpoint}, RocksDB's {@code Checkpoint.createCheckpoint}).
     * LevelDB-java has none.
     */
    default void checkpoint(Path target) {
        throw new UnsupportedOperationException(name() + " has no checkpoints");
    }

    /**
     * Begins an optimistic transaction (Varve's {@code Transaction}, RocksDB's {@code OptimisticTransactionDB},
     * which needs the store opened with {@link StoreSettings#withOptimisticTransactions}). LevelDB-java has none.
     */
    default KvTransaction beginOptimisticTransaction() {
        throw new UnsupportedOperationException(name() + " has no transactions");
    }

    /**
     * Adds {@code delta} (8 bytes, little-endian) to the 64-bit counter at {@code key} without reading it:
     * Varve's {@code Db.merge} with {@code MergeOperators.int64Add(LITTLE_ENDIAN)}, RocksDB's merge with its
     * built-in {@code uint64add} (also little-endian). LevelDB-java has no merge.
     */
    default void mergeAdd(byte[] key, byte[] delta) {
        throw new UnsupportedOperationException(name() + " has no merge operator");
    }

    /** A reusable batch for {@link #write}. Close it when done. */
    KvBatch newBatch();

    /** Applies the batch atomically. */
    void write(KvBatch batch, boolean sync);

    /** A forward cursor over the latest state. Close it before closing the store. */
    KvCursor cursor();

    /** Persists the memtables as tables and waits for it. */
    void flush();

    /** Compacts the whole key space and waits for it: the state db_bench reaches with --compact. */
    void compact();

    /**
     * Log fsyncs done so far, or -1 when the engine cannot tell (LevelDB-java), for "commits per fsync".
     * RocksDB counts them only when opened with {@link StoreSettings#rocksStatistics()}.
     */
    long fsyncs();

    /**
     * Bytes the engine has written so far and time writers spent stalled, or null when the engine cannot tell
     * (LevelDB-java). RocksDB counts them only when opened with {@link StoreSettings#rocksStatistics()}.
     */
    WriteStats writeStats();

    /** Closes every batch and cursor still open, then the engine, releasing native and off-heap memory. */
    @Override
    void close();
}
