package io.varve.core.internal.batch;

import io.varve.base.Varint;
import io.varve.core.internal.keys.ValueKind;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** Appends records in {@link WriteBatchFormat} to a growable heap buffer. Not thread-safe. */
public final class WriteBatchBuilder {

    /** Batches are capped so that lengths and counts stay far from int overflow. */
    public static final long MAX_BATCH_BYTES = 1L << 30;

    private byte[] buffer;
    private int size = WriteBatchFormat.HEADER_SIZE;
    private int count;
    /** The distinct column families of the records, in first-use order; usually one. */
    private int[] families = NO_FAMILIES;

    private static final int[] NO_FAMILIES = {};
    private static final int[] ONLY_DEFAULT = {WriteBatchFormat.DEFAULT_COLUMN_FAMILY};

    public WriteBatchBuilder() {
        this(64);
    }

    /**
     * @param expectedBytes the encoded size of the records to come, when known (one put: key, value and
     *     framing): the buffer starts that large, so adding them copies each byte once
     */
    public WriteBatchBuilder(long expectedBytes) {
        buffer = new byte[(int) Math.clamp(expectedBytes + WriteBatchFormat.HEADER_SIZE, 64, MAX_BATCH_BYTES)];
    }

    /** The encoded size of one record, for {@link #WriteBatchBuilder(long)}. */
    public static long recordBytes(MemorySegment key, MemorySegment value) {
        return 1 + 5 + 5 + key.byteSize() + 5 + (value == null ? 0 : value.byteSize());
    }

    public void add(ValueKind kind, int columnFamily, MemorySegment key, MemorySegment value) {
        long keyLength = key.byteSize();
        long valueLength = value == null ? 0 : value.byteSize();
        long needed = recordBytes(key, value);
        if (size + needed > MAX_BATCH_BYTES) {
            throw new IllegalArgumentException("write batch would exceed " + MAX_BATCH_BYTES + " bytes");
        }
        ensureCapacity((int) (size + needed));
        buffer[size++] = (byte) kind.code();
        size = Varint.write(buffer, size, columnFamily);
        size = Varint.write(buffer, size, (int) keyLength);
        MemorySegment.copy(key, ValueLayout.JAVA_BYTE, 0, buffer, size, (int) keyLength);
        size += (int) keyLength;
        if (WriteBatchFormat.hasValue(kind)) {
            size = Varint.write(buffer, size, (int) valueLength);
            MemorySegment.copy(value, ValueLayout.JAVA_BYTE, 0, buffer, size, (int) valueLength);
            size += (int) valueLength;
        }
        count++;
        noteFamily(columnFamily);
    }

    private void noteFamily(int columnFamily) {
        for (int f : families) {
            if (f == columnFamily) {
                return;
            }
        }
        if (families.length == 0 && columnFamily == WriteBatchFormat.DEFAULT_COLUMN_FAMILY) {
            families = ONLY_DEFAULT;
        } else {
            families = Arrays.copyOf(families, families.length + 1);
            families[families.length - 1] = columnFamily;
        }
    }

    /** The distinct column families the records use (do not modify). */
    public int[] columnFamilies() {
        return families;
    }

    public int count() {
        return count;
    }

    /** Encoded size in bytes, header included. */
    public int byteSize() {
        return size;
    }

    /** Bytes of keys and values plus per-record framing, without the header: what a memtable must hold. */
    public int payloadBytes() {
        return size - WriteBatchFormat.HEADER_SIZE;
    }

    public void clear() {
        size = WriteBatchFormat.HEADER_SIZE;
        count = 0;
        families = NO_FAMILIES;
    }

    /**
     * The encoded batch in place, with the count filled in: no copy. The commit pipeline writes the sequence
     * into it; it stays valid until the builder next changes.
     */
    public MemorySegment sealed() {
        MemorySegment batch = MemorySegment.ofArray(buffer).asSlice(0, size);
        WriteBatchFormat.setCount(batch, count);
        return batch;
    }

    /** A copy of the encoded batch with the count filled in and the sequence zero. */
    public byte[] encode() {
        byte[] copy = Arrays.copyOf(buffer, size);
        WriteBatchFormat.setCount(MemorySegment.ofArray(copy), count);
        return copy;
    }

    private void ensureCapacity(int needed) {
        if (needed > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(needed, buffer.length * 2));
        }
    }
}
