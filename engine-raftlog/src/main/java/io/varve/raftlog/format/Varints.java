package io.varve.raftlog.format;

/**
 * Unsigned LEB128 varints over the raw 64 bits of a long: 7 bits per byte, low groups first, the high bit
 * of a byte set when more bytes follow. Negative longs take 10 bytes; lengths and indexes take 1–5.
 */
public final class Varints {
    public static final int MAX_SIZE = 10;

    private Varints() {
    }

    public static int size(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    /** Writes {@code v} at {@code pos} and returns the position after it. */
    public static int write(byte[] buf, int pos, long v) {
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
        return pos;
    }
}
