package io.varve.kafka.streams.store;

import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Kafka Streams' persistent key-value store of raw bytes on one Varve database: what
 * {@code Stores.keyValueStoreBuilder} wraps with serdes, caching, change logging and metrics. Its database lives
 * in {@code <task state dir>/varve/<store name>}, so Kafka's task directory management (cleanup, migration,
 * wipe on corruption) covers it. It stores the changelog offsets it commits itself ({@link #managesOffsets()}).
 * Restoration applies each batch of changelog records as one engine write batch.
 *
 * <p>Keys order as unsigned bytes, as in Kafka's RocksDB store. Writes come from the owning task's thread;
 * reads and iterators may come from interactive-query threads too (see {@link StoreDatabase}).
 */
public class VarveKeyValueStore implements KeyValueStore<Bytes, byte[]>, BatchingStateRestoreCallback {

    /** The folder under a task's state directory that holds the databases of Varve stores. */
    public static final String STATE_SUBDIRECTORY = "varve";

    private final String name;
    private final StoreOptions options;
    private final Position position = Position.emptyPosition();
    private StateStoreContext context;
    private volatile StoreDatabase database;

    public VarveKeyValueStore(String name, StoreOptions options) {
        this.name = Objects.requireNonNull(name, "name");
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        Path dir = context.stateDir().toPath().resolve(STATE_SUBDIRECTORY).resolve(name);
        this.database = StoreDatabase.open(context, name, dir, options.forApplication(context.appConfigs()));
        this.context = context;
        context.register(root, this);
    }

    private StoreDatabase open() {
        StoreDatabase db = database;
        if (db == null) {
            throw new InvalidStateStoreException("Store " + name + " is not initialized");
        }
        db.checkOpen();
        return db;
    }

    @Override
    public void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        StoreDatabase db = open();
        if (value == null) {
            db.db().delete(key.get());
        } else {
            db.db().put(key.get(), value);
        }
        StoreQueryUtils.updatePosition(position, context);
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        byte[] existing = get(key);
        if (existing == null) {
            put(key, value);
        }
        return existing;
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        StoreDatabase db = open();
        WriteBatch batch = new WriteBatch();
        for (KeyValue<Bytes, byte[]> entry : entries) {
            Objects.requireNonNull(entry.key, "key cannot be null");
            if (entry.value == null) {
                batch.delete(entry.key.get());
            } else {
                batch.put(entry.key.get(), entry.value);
            }
        }
        if (batch.count() > 0) {
            db.db().write(batch, WriteOptions.DEFAULT);
        }
        StoreQueryUtils.updatePosition(position, context);
    }

    @Override
    public byte[] delete(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        byte[] existing = get(key);
        open().db().delete(key.get());
        StoreQueryUtils.updatePosition(position, context);
        return existing;
    }

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        return open().db().get(key.get());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return range(from, to, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return range(from, to, false);
    }

    private KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean forward) {
        StoreDatabase db = open();
        byte[] lower = from == null ? null : from.get();
        byte[] upper = to == null ? null : to.get();
        if (KeyRanges.invalid(lower, upper)) {
            return ByteRangeIterator.empty();
        }
        return new ByteRangeIterator(db, lower, upper == null ? null : KeyRanges.successor(upper), forward);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return new ByteRangeIterator(open(), null, null, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return new ByteRangeIterator(open(), null, null, false);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        byte[] start = prefixKeySerializer.serialize(null, prefix);
        return new ByteRangeIterator(open(), start, KeyRanges.prefixEnd(start), true);
    }

    /**
     * The exact number of live keys, counted by a scan: the engine keeps no running estimate of keys (RocksDB's
     * {@code estimate-num-keys}), so this costs a pass over the store.
     */
    @Override
    public long approximateNumEntries() {
        long count = 0;
        try (ByteRangeIterator it = new ByteRangeIterator(open(), null, null, true)) {
            while (it.hasNext()) {
                it.next();
                count++;
            }
        }
        return count;
    }

    @Override
    public void flush() {
        open().commit(Map.of());
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        open().commit(changelogOffsets);
    }

    @Override
    public boolean managesOffsets() {
        return true;
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return open().committedOffset(partition);
    }

    @Override
    public void close() {
        StoreDatabase db = database;
        if (db != null) {
            db.close();
        }
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        StoreDatabase db = database;
        return db != null && db.isOpen();
    }

    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, position, context);
    }

    @Override
    public Position getPosition() {
        return position;
    }

    /** Applies one batch of changelog records (a null value deletes) as one atomic engine write. */
    @Override
    public void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        StoreDatabase db = open();
        WriteBatch batch = new WriteBatch();
        for (KeyValue<byte[], byte[]> record : records) {
            if (record.value == null) {
                batch.delete(record.key);
            } else {
                batch.put(record.key, record.value);
            }
        }
        if (batch.count() > 0) {
            db.db().write(batch, WriteOptions.DEFAULT);
        }
    }
}
