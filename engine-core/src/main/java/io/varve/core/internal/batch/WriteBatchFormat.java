package io.varve.core.internal.batch;

import io.varve.core.internal.keys.ValueKind;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The encoding of a write batch: the unit the commit pipeline sequences, logs to the WAL (one WAL record
 * payload per batch) and applies to the memtable. Described byte by byte in docs/formats.md.
 *
 * <pre>
 *   header (12 bytes):  | sequence (8, LE) | count (4, LE) |
 *   then count records: | kind (1) | column family (varint) | key length (varint) | key |
 *                       [ value length (varint) | value ]   -- PUT, MERGE (value = operand) and
 *                                                             RANGE_DELETE (value = end key)
 * </pre>
 *
 * The sequence field holds the sequence of the batch's first record; record i gets {@code sequence + i}.
 * It is zero while the batch is being built and is filled in by the commit pipeline.
 */
public final class WriteBatchFormat {

    public static final int SEQUENCE_OFFSET = 0;
    public static final int COUNT_OFFSET = 8;
    public static final int HEADER_SIZE = 12;
    /** The column family every single-family write uses. */
    public static final int DEFAULT_COLUMN_FAMILY = 0;

    static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt COUNT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private WriteBatchFormat() {
    }

    public static long sequence(MemorySegment batch) {
        return batch.get(SEQUENCE, SEQUENCE_OFFSET);
    }

    public static void setSequence(MemorySegment batch, long sequence) {
        batch.set(SEQUENCE, SEQUENCE_OFFSET, sequence);
    }

    public static int count(MemorySegment batch) {
        return batch.get(COUNT, COUNT_OFFSET);
    }

    static void setCount(MemorySegment batch, int count) {
        batch.set(COUNT, COUNT_OFFSET, count);
    }

    static boolean hasValue(ValueKind kind) {
        return kind != ValueKind.DELETE;
    }
}
