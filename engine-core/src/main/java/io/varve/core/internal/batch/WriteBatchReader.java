package io.varve.core.internal.batch;

import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Walks the records of an encoded batch, validating every length against the buffer so that a damaged
 * batch is reported (as {@link MalformedBatchException}) instead of read out of bounds. Keys and values are
 * zero-copy slices of the batch.
 */
public final class WriteBatchReader {

    /** The batch's bytes do not parse. */
    public static final class MalformedBatchException extends Exception {
        MalformedBatchException(String message) {
            super(message);
        }
    }

    private final MemorySegment batch;
    private final int count;
    private long position = WriteBatchFormat.HEADER_SIZE;
    private int index;

    private ValueKind kind;
    private int columnFamily;
    private MemorySegment key;
    private MemorySegment value;

    public WriteBatchReader(MemorySegment batch) throws MalformedBatchException {
        if (batch.byteSize() < WriteBatchFormat.HEADER_SIZE) {
            throw new MalformedBatchException("batch of " + batch.byteSize() + " bytes is shorter than its header");
        }
        this.batch = batch;
        this.count = WriteBatchFormat.count(batch);
        if (count < 0) {
            throw new MalformedBatchException("negative record count " + count);
        }
    }

    public long sequence() {
        return WriteBatchFormat.sequence(batch);
    }

    public int count() {
        return count;
    }

    /** Advances to the next record; false after the last. Fails if the records do not fill the batch exactly. */
    public boolean next() throws MalformedBatchException {
        if (index == count) {
            if (position != batch.byteSize()) {
                throw new MalformedBatchException((batch.byteSize() - position) + " trailing bytes after " + count + " records");
            }
            return false;
        }
        int code = Byte.toUnsignedInt(readByte());
        kind = ValueKind.fromCodeOrNull(code);
        if (kind == null) {
            throw new MalformedBatchException("unknown record kind " + code + " at byte " + (position - 1));
        }
        columnFamily = readVarint();
        key = readSlice(readVarint());
        value = WriteBatchFormat.hasValue(kind) ? readSlice(readVarint()) : null;
        if (kind == ValueKind.RANGE_DELETE && Keys.compare(key, value) >= 0) {
            throw new MalformedBatchException("range deletion " + index + " has begin >= end");
        }
        index++;
        return true;
    }

    public ValueKind kind() {
        return kind;
    }

    public int columnFamily() {
        return columnFamily;
    }

    public MemorySegment key() {
        return key;
    }


    /** The value of a PUT, the operand of a MERGE, the end key of a RANGE_DELETE; null for a DELETE. */
    public MemorySegment value() {
        return value;
    }

    private byte readByte() throws MalformedBatchException {
        if (position >= batch.byteSize()) {
            throw new MalformedBatchException("record " + index + " runs past the end of the batch");
        }
        return batch.get(ValueLayout.JAVA_BYTE, position++);
    }

    private int readVarint() throws MalformedBatchException {
        int result = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = Byte.toUnsignedInt(readByte());
            result |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (result < 0) {
                    throw new MalformedBatchException("varint out of range at byte " + position);
                }
                return result;
            }
        }
        throw new MalformedBatchException("varint longer than 5 bytes at byte " + position);
    }

    private MemorySegment readSlice(int length) throws MalformedBatchException {
        if (length > batch.byteSize() - position) {
            throw new MalformedBatchException("length " + length + " at byte " + position + " runs past the batch");
        }
        MemorySegment slice = batch.asSlice(position, length);
        position += length;
        return slice;
    }
}
