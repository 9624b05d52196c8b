package io.varve.core;

import io.varve.core.batch.BatchFormat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A {@link WriteBatch} that can be read before it is written: {@link #get} looks a key up in the batch and
 * then in the database, and {@link #iterator} walks the database with the batch laid over it, as if the
 * batch had been applied. The building block of transactions (RocksDB's {@code WriteBatchWithIndex}).
 *
 * <p>The index keeps, per column family and key, the batch's newest operation on that key, in a sorted map;
 * the batch itself keeps every operation in order, so writing it applies exactly what was added. Not
 * thread-safe.
 */
public final class WriteBatchWithIndex {

    /** The newest operation on a key in the batch: a value, or null for a deletion. */
    record Entry(byte[] value) {
        boolean deleted() {
            return value == null;
        }
    }

    private final WriteBatch batch = new WriteBatch();
    /** Family id -> key -> newest operation. */
    private final Map<Integer, NavigableMap<byte[], Entry>> index = new HashMap<>();

    public WriteBatchWithIndex put(byte[] key, byte[] value) {
        batch.put(key, value);
        record(null, key, new Entry(value.clone()));
        return this;
    }

    public WriteBatchWithIndex put(ColumnFamily family, byte[] key, byte[] value) {
        batch.put(family, key, value);
        record(family, key, new Entry(value.clone()));
        return this;
    }

    public WriteBatchWithIndex delete(byte[] key) {
        batch.delete(key);
        record(null, key, new Entry(null));
        return this;
    }

    public WriteBatchWithIndex delete(ColumnFamily family, byte[] key) {
        batch.delete(family, key);
        record(family, key, new Entry(null));
        return this;
    }

    /** The batch to pass to {@link Db#write}; it holds every operation added, in order. */
    public WriteBatch writeBatch() {
        return batch;
    }

    public int count() {
        return batch.count();
    }

    public WriteBatchWithIndex clear() {
        batch.clear();
        index.clear();
        return this;
    }

    /**
     * The value of {@code key} with the batch applied over {@code db} read with {@code options}: the batch's
     * newest operation on the key if it has one (null for a deletion), else the database's value.
     */
    public byte[] get(Db db, ReadOptions options, ColumnFamily family, byte[] key) {
        Objects.requireNonNull(key, "key");
        Entry entry = familyIndex(family).get(key);
        if (entry != null) {
            return entry.deleted() ? null : entry.value().clone();
        }
        return db.get(options, family, key);
    }

    /** {@link #get(Db, ReadOptions, ColumnFamily, byte[])} in the default family at the latest state. */
    public byte[] get(Db db, byte[] key) {
        return get(db, ReadOptions.DEFAULT, db.defaultColumnFamily(), key);
    }

    /**
     * Whether the batch itself decides {@code key}'s value: then {@link #getFromBatch} is the answer without
     * reading the database.
     */
    public boolean containsKey(ColumnFamily family, byte[] key) {
        return familyIndex(family).containsKey(key);
    }

    /** The batch's own value for {@code key}; null when it deletes the key or does not touch it. */
    public byte[] getFromBatch(ColumnFamily family, byte[] key) {
        Entry entry = familyIndex(family).get(key);
        return entry == null || entry.deleted() ? null : entry.value().clone();
    }

    /**
     * An iterator over {@code db}'s {@code family} read with {@code options} (snapshot and bounds), with this
     * batch laid over it. The batch must not change while the iterator is open.
     */
    public DbIterator iterator(Db db, ReadOptions options, ColumnFamily family) {
        NavigableMap<byte[], Entry> entries = familyIndex(family);
        byte[] lower = options.lowerBoundUnsafe();
        byte[] upper = options.upperBoundUnsafe();
        if (lower != null && upper != null && Arrays.compareUnsigned(lower, upper) >= 0) {
            entries = new TreeMap<>(Arrays::compareUnsigned);
        } else if (lower != null && upper != null) {
            entries = entries.subMap(lower, true, upper, false);
        } else if (lower != null) {
            entries = entries.tailMap(lower, true);
        } else if (upper != null) {
            entries = entries.headMap(upper, false);
        }
        return new BatchOverlayIterator(db.iterator(options, family), entries);
    }

    private void record(ColumnFamily family, byte[] key, Entry entry) {
        int id = family == null ? BatchFormat.DEFAULT_COLUMN_FAMILY : family.id();
        index.computeIfAbsent(id, k -> new TreeMap<>(Arrays::compareUnsigned)).put(key.clone(), entry);
    }

    private NavigableMap<byte[], Entry> familyIndex(ColumnFamily family) {
        NavigableMap<byte[], Entry> entries = index.get(family.id());
        return entries != null ? entries : new TreeMap<>(Arrays::compareUnsigned);
    }
}
