package io.varve.core;

import io.varve.core.internal.ColumnFamilies;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.core.internal.batch.WriteBatchFormat;
import io.varve.core.internal.batch.WriteBatchReader;
import io.varve.core.internal.sst.TableWriter;
import io.varve.core.internal.version.VersionSet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A group of puts, deletes and merges applied atomically by {@link Db#write}: readers see all of it or none of it
 * (in the default ordered mode), and after a crash it is recovered whole or not at all. Later operations on
 * the same key win. Reusable after {@link #clear()}; not thread-safe.
 */
public final class WriteBatch {

    /** The name of the default column family, as {@link Visitor} reports it. */
    public static final String DEFAULT_FAMILY = VersionSet.DEFAULT_FAMILY_NAME;

    /**
     * The largest key plus value, in bytes, of one entry (a range delete's begin plus end). A table block must
     * hold any one entry whole, so an entry over this size could be logged but never flushed: writes refuse it
     * with {@link EntryTooLargeException} before anything is logged.
     */
    public static final long MAX_ENTRY_BYTES = TableWriter.MAX_ENTRY_SIZE;

    private final WriteBatchBuilder builder = new WriteBatchBuilder();
    /** The database whose column-family handles the batch used; a batch may not mix databases. */
    private Object owner;
    private int[] mergeFamilies = {};
    /** The handles used, by id, so {@link #forEach} can name their families; null until one is used. */
    private Map<Integer, ColumnFamily> familiesUsed;

    public WriteBatch put(byte[] key, byte[] value) {
        return put(MemorySegment.ofArray(Objects.requireNonNull(key, "key")),
                MemorySegment.ofArray(Objects.requireNonNull(value, "value")));
    }

    /** Copies the key and value out of the given segments (heap or off-heap) into the batch. */
    public WriteBatch put(MemorySegment key, MemorySegment value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        add(ValueKind.PUT, WriteBatchFormat.DEFAULT_COLUMN_FAMILY, key, value);
        return this;
    }

    public WriteBatch delete(byte[] key) {
        return delete(MemorySegment.ofArray(Objects.requireNonNull(key, "key")));
    }

    public WriteBatch delete(MemorySegment key) {
        Objects.requireNonNull(key, "key");
        add(ValueKind.DELETE, WriteBatchFormat.DEFAULT_COLUMN_FAMILY, key, null);
        return this;
    }

    /**
     * Deletes every key {@code k} with {@code begin <= k < end} (unsigned byte order) as of this batch's
     * sequence, in one record whatever the number of keys in the range.
     *
     * @throws IllegalArgumentException if {@code begin >= end}
     */
    public WriteBatch deleteRange(byte[] begin, byte[] end) {
        add(ValueKind.RANGE_DELETE, WriteBatchFormat.DEFAULT_COLUMN_FAMILY, rangeBegin(begin, end),
                MemorySegment.ofArray(end));
        return this;
    }

    /** {@link #deleteRange(byte[], byte[])} in {@code family}. */
    public WriteBatch deleteRange(ColumnFamily family, byte[] begin, byte[] end) {
        MemorySegment from = rangeBegin(begin, end);
        add(ValueKind.RANGE_DELETE, familyId(family), from, MemorySegment.ofArray(end));
        return this;
    }

    static MemorySegment rangeBegin(byte[] begin, byte[] end) {
        Objects.requireNonNull(begin, "begin");
        Objects.requireNonNull(end, "end");
        if (Arrays.compareUnsigned(begin, end) >= 0) {
            throw new IllegalArgumentException("deleteRange needs begin < end");
        }
        return MemorySegment.ofArray(begin);
    }

    /**
     * Adds a merge operand for {@code key} in the default family. The family must have a merge operator;
     * {@link Db#write} refuses the batch otherwise.
     */
    public WriteBatch merge(byte[] key, byte[] operand) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(operand, "operand");
        add(ValueKind.MERGE, WriteBatchFormat.DEFAULT_COLUMN_FAMILY, MemorySegment.ofArray(key),
                MemorySegment.ofArray(operand));
        noteMerge(WriteBatchFormat.DEFAULT_COLUMN_FAMILY);
        return this;
    }

    /** Adds a merge operand for {@code key} in {@code family}, which must have a merge operator. */
    public WriteBatch merge(ColumnFamily family, byte[] key, byte[] operand) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(operand, "operand");
        int id = familyId(family);
        if (family.owner() instanceof ColumnFamilies registry) {
            registry.requireMergeOperator(id);
        }
        add(ValueKind.MERGE, id, MemorySegment.ofArray(key), MemorySegment.ofArray(operand));
        noteMerge(id);
        return this;
    }

    private void add(ValueKind kind, int family, MemorySegment key, MemorySegment value) {
        requireStorable(key, value);
        builder.add(kind, family, key, value);
    }

    /** Refuses an entry no table could hold; {@code value} may be null (a delete). */
    static void requireStorable(MemorySegment key, MemorySegment value) {
        long size = key.byteSize() + (value == null ? 0 : value.byteSize());
        if (size > MAX_ENTRY_BYTES) {
            throw new EntryTooLargeException(size);
        }
    }

    private void noteMerge(int family) {
        for (int f : mergeFamilies) {
            if (f == family) {
                return;
            }
        }
        mergeFamilies = Arrays.copyOf(mergeFamilies, mergeFamilies.length + 1);
        mergeFamilies[mergeFamilies.length - 1] = family;
    }

    /** The families the batch merges into (do not modify). */
    int[] mergeFamilies() {
        return mergeFamilies;
    }

    /** Adds a put to {@code family}; the batch then applies only to that family's database. */
    public WriteBatch put(ColumnFamily family, byte[] key, byte[] value) {
        return put(family, MemorySegment.ofArray(Objects.requireNonNull(key, "key")),
                MemorySegment.ofArray(Objects.requireNonNull(value, "value")));
    }

    public WriteBatch put(ColumnFamily family, MemorySegment key, MemorySegment value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        add(ValueKind.PUT, familyId(family), key, value);
        return this;
    }

    public WriteBatch delete(ColumnFamily family, byte[] key) {
        Objects.requireNonNull(key, "key");
        add(ValueKind.DELETE, familyId(family), MemorySegment.ofArray(key), null);
        return this;
    }

    private int familyId(ColumnFamily family) {
        Objects.requireNonNull(family, "family");
        if (owner != null && owner != family.owner()) {
            throw new IllegalArgumentException("a write batch cannot span column families of different databases");
        }
        owner = family.owner();
        if (familiesUsed == null) {
            familiesUsed = new HashMap<>();
        }
        familiesUsed.putIfAbsent(family.id(), family);
        return family.id();
    }

    /** The database the batch's column-family handles belong to, or null if it used none. */
    Object owner() {
        return owner;
    }

    public int count() {
        return builder.count();
    }

    /** Encoded size in bytes. */
    public int byteSize() {
        return builder.byteSize();
    }

    public WriteBatch clear() {
        builder.clear();
        owner = null;
        mergeFamilies = new int[0];
        familiesUsed = null;
        return this;
    }

    /**
     * Receives a batch's operations, in order, from {@link #forEach}, each with the name of its column family
     * ({@link #DEFAULT_FAMILY} for the default one). Keys and values are copies.
     */
    public interface Visitor {
        void put(String family, byte[] key, byte[] value);

        void delete(String family, byte[] key);

        void deleteRange(String family, byte[] begin, byte[] end);

        /**
         * A merge operand. By default a batch with merges cannot be carried: a visitor that ignored them would
         * apply a different batch elsewhere.
         */
        default void merge(String family, byte[] key, byte[] operand) {
            throw new IllegalArgumentException("this visitor does not carry merge operands");
        }
    }

    /**
     * Hands every operation to {@code visitor} in the order they were added, so a layer above the database
     * (a replication log) can carry the batch elsewhere and apply it there.
     */
    public void forEach(Visitor visitor) {
        try {
            WriteBatchReader reader = new WriteBatchReader(MemorySegment.ofArray(builder.encode()));
            while (reader.next()) {
                String family = familyName(reader.columnFamily());
                byte[] key = reader.key().toArray(ValueLayout.JAVA_BYTE);
                switch (reader.kind()) {
                    case PUT -> visitor.put(family, key,
                            reader.value().toArray(ValueLayout.JAVA_BYTE));
                    case DELETE -> visitor.delete(family, key);
                    case RANGE_DELETE -> visitor.deleteRange(family, key,
                            reader.value().toArray(ValueLayout.JAVA_BYTE));
                    case MERGE -> visitor.merge(family, key, reader.value().toArray(ValueLayout.JAVA_BYTE));
                }
            }
        } catch (WriteBatchReader.MalformedBatchException e) {
            throw new IllegalStateException("a batch this class built does not parse", e);
        }
    }

    private String familyName(int id) {
        if (id == WriteBatchFormat.DEFAULT_COLUMN_FAMILY) {
            return DEFAULT_FAMILY;
        }
        return familiesUsed.get(id).name();
    }

    WriteBatchBuilder builder() {
        return builder;
    }
}
