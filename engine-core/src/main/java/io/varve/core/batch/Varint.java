package io.varve.core.batch;

/** Unsigned LEB128 for non-negative ints, as used by the batch format. */
final class Varint {

    private Varint() {
    }

    static int put(byte[] buffer, int position, int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            buffer[position++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buffer[position++] = (byte) v;
        return position;
    }
}
