package io.varve.core.internal.sst;

import io.varve.base.Varint;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A growable heap byte array with the append operations the table encoders need (varints, little-endian
 * fixed widths, copies out of memory segments). Like {@link StringBuilder}, but for bytes. Not thread-safe.
 */
final class ByteBuilder {

    private byte[] bytes;
    private int size;

    ByteBuilder(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    int size() {
        return size;
    }

    /** The backing array; only the first {@link #size()} bytes are meaningful. */
    byte[] array() {
        return bytes;
    }

    void clear() {
        size = 0;
    }

    /** Makes room for {@code extra} more bytes. */
    void reserve(int extra) {
        long needed = (long) size + extra;
        if (needed > bytes.length) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("buffer would exceed 2 GiB");
            }
            long grown = Math.max(needed, Math.min((long) bytes.length * 2, Integer.MAX_VALUE - 16));
            bytes = Arrays.copyOf(bytes, (int) grown);
        }
    }

    void appendByte(int b) {
        reserve(1);
        bytes[size++] = (byte) b;
    }

    void appendVarint(long value) {
        reserve(Varint.MAX_LONG_LENGTH);
        size = Varint.write(bytes, size, value);
    }

    void appendFixed32(int value) {
        reserve(4);
        for (int i = 0; i < 4; i++) {
            bytes[size++] = (byte) (value >>> (8 * i));
        }
    }

    void appendFixed64(long value) {
        reserve(8);
        for (int i = 0; i < 8; i++) {
            bytes[size++] = (byte) (value >>> (8 * i));
        }
    }

    void append(byte[] source, int offset, int length) {
        reserve(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    void append(MemorySegment source) {
        int length = Math.toIntExact(source.byteSize());
        reserve(length);
        MemorySegment.copy(source, ValueLayout.JAVA_BYTE, 0, bytes, size, length);
        size += length;
    }

    byte[] toArray() {
        return Arrays.copyOf(bytes, size);
    }
}
