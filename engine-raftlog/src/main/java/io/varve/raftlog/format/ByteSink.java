package io.varve.raftlog.format;

import io.varve.base.Varint;

import java.util.Arrays;

/** A growable little-endian byte buffer used to build batches without an object per field. */
public final class ByteSink {
    private byte[] buf;
    private int size;

    public ByteSink(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    public int size() {
        return size;
    }

    /** The backing array; only the first {@link #size()} bytes are meaningful. */
    public byte[] array() {
        return buf;
    }

    public void clear() {
        size = 0;
    }

    public void writeByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    public void writeIntLE(int v) {
        ensure(4);
        putIntLE(buf, size, v);
        size += 4;
    }

    public void writeLongLE(long v) {
        ensure(8);
        putLongLE(buf, size, v);
        size += 8;
    }

    public void writeVarint(long v) {
        ensure(Varint.MAX_LONG_LENGTH);
        size = Varint.write(buf, size, v);
    }

    public void writeBytes(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, buf, size, len);
        size += len;
    }

    public void writeBytes(byte[] src) {
        writeBytes(src, 0, src.length);
    }

    /** Length-prefixed (varint) bytes. */
    public void writeLengthPrefixed(byte[] src) {
        writeVarint(src.length);
        writeBytes(src);
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    private void ensure(int extra) {
        long needed = (long) size + extra;
        if (needed > buf.length) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("buffer would exceed 2 GiB");
            }
            long grown = Math.max(needed, Math.min(Integer.MAX_VALUE - 16L, (long) buf.length * 2));
            buf = Arrays.copyOf(buf, (int) grown);
        }
    }

    public static void putIntLE(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }

    public static void putLongLE(byte[] b, int off, long v) {
        putIntLE(b, off, (int) v);
        putIntLE(b, off + 4, (int) (v >>> 32));
    }

    public static int getIntLE(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }

    public static long getLongLE(byte[] b, int off) {
        return (getIntLE(b, off) & 0xFFFFFFFFL) | ((long) getIntLE(b, off + 4) << 32);
    }
}
