package io.varve.kafka.streams.store;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStoreContext;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Varve database under one state store: its data in the default column family, the changelog offsets the
 * store has committed in a family of their own, and the iterators open on it.
 *
 * <p>A crash keeps a prefix of the store's writes, offsets and data alike, so an offset that survives it implies
 * every write made before it survived too (KIP-1035: a restart restores from the changelog only what follows the
 * recovered offset), and {@link #commit} needs no fsync. By default the database runs without a write-ahead log,
 * as Kafka's RocksDB stores do ({@link io.varve.kafka.streams.VarveStoreConfig#WRITE_AHEAD_LOG}): the prefix is
 * then the last flush of the memtables, which the changelog completes. With the log, it is a prefix of the log.
 * {@link #close()} makes everything durable.
 *
 * <p>Threads: the owning task's thread writes; interactive queries may read and open iterators from other
 * threads. The engine is thread-safe; this class adds only the set of open iterators (concurrent) and the
 * open flag (volatile), so {@link #close()} can end iterators a query thread still holds.
 */
public final class StoreDatabase implements AutoCloseable {

    static final String OFFSETS_FAMILY = "kafka-streams.offsets";

    private final String storeName;
    private final Db db;
    private final ColumnFamily offsets;
    private final Set<AutoCloseable> openIterators = ConcurrentHashMap.newKeySet();
    private volatile boolean open = true;
    /** The store's engine gauges in Kafka's metrics, or null when its context has no metrics registry. */
    private StoreMetrics metrics;

    private StoreDatabase(String storeName, Db db, ColumnFamily offsets) {
        this.storeName = storeName;
        this.db = db;
        this.offsets = offsets;
    }

    /**
     * Opens (creating if missing) the database of store {@code storeName} in {@code dir}, and reports its engine
     * figures through {@code context}'s metrics (see {@link StoreMetrics}).
     */
    public static StoreDatabase open(StateStoreContext context, String storeName, Path dir, Options options) {
        StoreDatabase database = open(storeName, dir, options);
        try {
            database.metrics = StoreMetrics.register(context, database, options);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
        return database;
    }

    /** Opens (creating if missing) the database of store {@code storeName} in {@code dir}. */
    public static StoreDatabase open(String storeName, Path dir, Options options) {
        try {
            Files.createDirectories(dir);
            Db db = Db.open(dir, options);
            try {
                ColumnFamily offsets = db.columnFamily(OFFSETS_FAMILY)
                        .orElseGet(() -> db.createColumnFamily(OFFSETS_FAMILY, ColumnFamilyOptions.from(options)));
                return new StoreDatabase(storeName, db, offsets);
            } catch (RuntimeException e) {
                db.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            throw new ProcessorStateException("Error opening store " + storeName + " at location " + dir, e);
        }
    }

    public Db db() {
        checkOpen();
        return db;
    }

    public boolean isOpen() {
        return open;
    }

    /** Throws Kafka's exception for a closed store, as every store operation must after close. */
    public void checkOpen() {
        if (!open) {
            throw new InvalidStateStoreException("Store " + storeName + " is currently closed");
        }
    }

    public String storeName() {
        return storeName;
    }

    /** Records {@code changelogOffsets} (which may be empty) after every write made so far. */
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        checkOpen();
        WriteBatch batch = new WriteBatch();
        for (Map.Entry<TopicPartition, Long> entry : changelogOffsets.entrySet()) {
            byte[] key = offsetKey(entry.getKey());
            if (entry.getValue() == null) {
                batch.delete(offsets, key);
            } else {
                batch.put(offsets, key, ByteBuffer.allocate(Long.BYTES).putLong(entry.getValue()).array());
            }
        }
        if (batch.count() > 0) {
            db.write(batch, WriteOptions.DEFAULT);
        }
    }

    /** The offset last committed for {@code partition}, or null if none was. */
    public Long committedOffset(TopicPartition partition) {
        checkOpen();
        byte[] value = db.get(offsets, offsetKey(partition));
        return value == null ? null : ByteBuffer.wrap(value).getLong();
    }

    private static byte[] offsetKey(TopicPartition partition) {
        byte[] topic = partition.topic().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(topic.length + Integer.BYTES).put(topic).putInt(partition.partition()).array();
    }

    /** Registers an iterator for {@link #close()} to end; the iterator unregisters itself when it closes. */
    public void track(AutoCloseable iterator) {
        openIterators.add(iterator);
    }

    public void untrack(AutoCloseable iterator) {
        openIterators.remove(iterator);
    }

    /** Ends every open iterator, makes every write durable and closes the database. Idempotent. */
    @Override
    public void close() {
        if (!open) {
            return;
        }
        open = false;
        if (metrics != null) {
            metrics.close();
        }
        List<AutoCloseable> iterators = new ArrayList<>(openIterators);
        for (AutoCloseable iterator : iterators) {
            try {
                iterator.close();
            } catch (Exception e) {
                System.getLogger(StoreDatabase.class.getName()).log(System.Logger.Level.WARNING,
                        "closing an iterator of store " + storeName + " failed", e);
            }
        }
        openIterators.clear();
        try {
            db.syncWal();
        } finally {
            db.close();
        }
    }
}
