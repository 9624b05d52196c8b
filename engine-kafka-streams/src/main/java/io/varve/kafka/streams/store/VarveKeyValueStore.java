package io.varve.kafka.streams.store;

import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Kafka Streams' persistent key-value store of raw bytes on one Varve database: what
 * {@code Stores.keyValueStoreBuilder} wraps with serdes, caching, change logging and metrics. Where the database
 * lives and the committed changelog offsets are {@link DatabaseStateStore}'s. Restoration applies each batch of
 * changelog records as one engine write batch.
 *
 * <p>Keys order as unsigned bytes, as in Kafka's RocksDB store. Writes come from the owning task's thread;
 * reads and iterators may come from interactive-query threads too (see {@link StoreDatabase}).
 */
public class VarveKeyValueStore extends DatabaseStateStore
        implements KeyValueStore<Bytes, byte[]>, BatchingStateRestoreCallback {

    public VarveKeyValueStore(String name, StoreOptions options) {
        super(name, options);
    }

    @Override
    protected StateRestoreCallback restoreCallback() {
        return this;
    }

    @Override
    public void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        StoreDatabase db = database();
        if (value == null) {
            db.db().delete(key.get());
        } else {
            db.db().put(key.get(), value);
        }
        updatePosition();
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
        StoreDatabase db = database();
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
        updatePosition();
    }

    @Override
    public byte[] delete(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        byte[] existing = get(key);
        database().db().delete(key.get());
        updatePosition();
        return existing;
    }

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        return database().db().get(key.get());
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
        StoreDatabase db = database();
        byte[] lower = from == null ? null : from.get();
        byte[] upper = to == null ? null : to.get();
        if (KeyRanges.invalid(lower, upper)) {
            return ByteRangeIterator.empty();
        }
        return new ByteRangeIterator(db, lower, upper == null ? null : KeyRanges.successor(upper), forward);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return new ByteRangeIterator(database(), null, null, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return new ByteRangeIterator(database(), null, null, false);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        byte[] start = prefixKeySerializer.serialize(null, prefix);
        return new ByteRangeIterator(database(), start, KeyRanges.prefixEnd(start), true);
    }

    /**
     * The exact number of live keys, counted by a scan: the engine keeps no running estimate of keys (RocksDB's
     * {@code estimate-num-keys}), so this costs a pass over the store.
     */
    @Override
    public long approximateNumEntries() {
        long count = 0;
        try (ByteRangeIterator it = new ByteRangeIterator(database(), null, null, true)) {
            while (it.hasNext()) {
                it.next();
                count++;
            }
        }
        return count;
    }

    /** Applies one batch of changelog records (a null value deletes) as one atomic engine write. */
    @Override
    public void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        StoreDatabase db = database();
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
