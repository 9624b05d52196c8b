package io.varve.core;

import io.varve.core.internal.ColumnFamilies;
import io.varve.core.internal.batch.WriteBatchFormat;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.merge.Merges;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A {@link WriteBatch} that can be read before it is written: {@link #get} looks a key up in the batch and
 * then in the database, and {@link #iterator} walks the database with the batch laid over it, as if the
 * batch had been applied. The building block of transactions (RocksDB's {@code WriteBatchWithIndex}).
 *
 * <p>The index keeps, per column family and key, the batch's net effect on that key, in a sorted map: its last
 * put or delete, and the merge operands added after it (or operands alone, which then apply to the
 * database's value when read, as RocksDB resolves them). The batch itself keeps every operation in order,
 * so writing it applies exactly what was added. Not thread-safe.
 */
public final class WriteBatchWithIndex {

    /**
     * The batch's net effect on a key: a put ({@code value}) or delete (null) when {@code decided}, then merge
     * operands, oldest first; undecided entries hold operands only, over whatever the database holds.
     */
    static final class Entry {
        final boolean decided;
        final byte[] value;
        final List<byte[]> operands = new ArrayList<>();

        Entry(boolean decided, byte[] value) {
            this.decided = decided;
            this.value = value;
        }

        /** A delete with nothing merged after it: the key is absent whatever the database holds. */
        boolean deleted() {
            return decided && value == null && operands.isEmpty();
        }

        /** The key's value with this entry applied over {@code dbValue} (ignored when decided). */
        byte[] resolve(byte[] key, byte[] dbValue, MergeOperator operator) {
            if (operands.isEmpty()) {
                return value;
            }
            return Merges.fullMerge(operator, key, decided ? value : dbValue, operands);
        }
    }

    /** What a family the batch has not touched reads as: shared, since nothing writes to it. */
    private static final NavigableMap<byte[], Entry> NONE =
            Collections.unmodifiableNavigableMap(new TreeMap<>(Arrays::compareUnsigned));

    private final WriteBatch batch = new WriteBatch();
    /** Family id -> key -> newest operation. */
    private final Map<Integer, NavigableMap<byte[], Entry>> index = new HashMap<>();

    public WriteBatchWithIndex put(byte[] key, byte[] value) {
        batch.put(key, value);
        record(null, key, new Entry(true, value.clone()));
        return this;
    }

    public WriteBatchWithIndex put(ColumnFamily family, byte[] key, byte[] value) {
        batch.put(family, key, value);
        record(family, key, new Entry(true, value.clone()));
        return this;
    }

    public WriteBatchWithIndex delete(byte[] key) {
        batch.delete(key);
        record(null, key, new Entry(true, null));
        return this;
    }

    public WriteBatchWithIndex delete(ColumnFamily family, byte[] key) {
        batch.delete(family, key);
        record(family, key, new Entry(true, null));
        return this;
    }

    /** Adds a merge operand for {@code key} in the default family (see {@link WriteBatch#merge}). */
    public WriteBatchWithIndex merge(byte[] key, byte[] operand) {
        batch.merge(key, operand);
        recordMerge(null, key, operand.clone());
        return this;
    }

    /** Adds a merge operand for {@code key} in {@code family}, which must have a merge operator. */
    public WriteBatchWithIndex merge(ColumnFamily family, byte[] key, byte[] operand) {
        batch.merge(family, key, operand);
        recordMerge(family, key, operand.clone());
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
     * put or delete of the key with its later merge operands applied, else the database's value with the
     * batch's operands applied, else the database's value.
     *
     * @throws io.varve.core.merge.MergeFailedException if operands must be merged and the operator fails
     */
    public byte[] get(Db db, ReadOptions options, ColumnFamily family, byte[] key) {
        Objects.requireNonNull(key, "key");
        Entry entry = familyIndex(family).get(key);
        if (entry == null) {
            return db.get(options, family, key);
        }
        byte[] dbValue = entry.decided ? null : db.get(options, family, key);
        byte[] value = entry.resolve(key, dbValue, operatorOf(family));
        return value == null ? null : value.clone();
    }

    /** {@link #get(Db, ReadOptions, ColumnFamily, byte[])} in the default family at the latest state. */
    public byte[] get(Db db, byte[] key) {
        return get(db, ReadOptions.DEFAULT, db.defaultColumnFamily(), key);
    }

    /**
     * Whether the batch itself decides {@code key}'s value (it puts or deletes the key, perhaps merging after
     * that): then {@link #getFromBatch} is the answer without reading the database. Operands alone do not
     * decide it: they apply to the database's value.
     */
    public boolean containsKey(ColumnFamily family, byte[] key) {
        Entry entry = familyIndex(family).get(key);
        return entry != null && entry.decided;
    }

    /**
     * The batch's own value for {@code key}; null when it deletes the key, does not touch it, or only merges
     * into it (see {@link #containsKey}).
     */
    public byte[] getFromBatch(ColumnFamily family, byte[] key) {
        Entry entry = familyIndex(family).get(key);
        if (entry == null || !entry.decided) {
            return null;
        }
        byte[] value = entry.resolve(key, null, operatorOf(family));
        return value == null ? null : value.clone();
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
        return new BatchOverlayIterator(db.iterator(options, family), entries, operatorOf(family));
    }

    private void record(ColumnFamily family, byte[] key, Entry entry) {
        familyIndexForWrite(family).put(key.clone(), entry);
    }

    private void recordMerge(ColumnFamily family, byte[] key, byte[] operand) {
        NavigableMap<byte[], Entry> entries = familyIndexForWrite(family);
        Entry entry = entries.get(key);
        if (entry == null) {
            entry = new Entry(false, null);
            entries.put(key.clone(), entry);
        }
        entry.operands.add(operand);
    }

    private NavigableMap<byte[], Entry> familyIndexForWrite(ColumnFamily family) {
        int id = family == null ? WriteBatchFormat.DEFAULT_COLUMN_FAMILY : family.id();
        return index.computeIfAbsent(id, k -> new TreeMap<>(Arrays::compareUnsigned));
    }

    /** The family's merge operator, or null (a merge then fails when read, naming the missing operator). */
    private static MergeOperator operatorOf(ColumnFamily family) {
        return family.owner() instanceof ColumnFamilies registry ? registry.mergeOperator(family.id()) : null;
    }

    private NavigableMap<byte[], Entry> familyIndex(ColumnFamily family) {
        NavigableMap<byte[], Entry> entries = index.get(family.id());
        return entries != null ? entries : NONE;
    }
}
