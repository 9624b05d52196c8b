package io.varve.server.store;

import java.nio.ByteBuffer;

/**
 * A stream entry ID: milliseconds and sequence, both unsigned 64-bit as in Redis ({@code 18446744073709551615}
 * is the largest of each). Ordered by milliseconds, then sequence, unsigned; stored as 16 big-endian bytes so
 * the engine's byte order is ID order.
 */
public record StreamId(long ms, long seq) implements Comparable<StreamId> {

    public static final StreamId MIN = new StreamId(0, 0);
    public static final StreamId MAX = new StreamId(-1L, -1L);
    /** Bytes of an encoded ID. */
    public static final int BYTES = 16;

    @Override
    public int compareTo(StreamId o) {
        int c = Long.compareUnsigned(ms, o.ms);
        return c != 0 ? c : Long.compareUnsigned(seq, o.seq);
    }

    public boolean isZero() {
        return ms == 0 && seq == 0;
    }

    /** The next ID, or null after {@link #MAX}. */
    public StreamId next() {
        if (seq != -1L) {
            return new StreamId(ms, seq + 1);
        }
        return ms == -1L ? null : new StreamId(ms + 1, 0);
    }

    /** The previous ID, or null before {@link #MIN}. */
    public StreamId previous() {
        if (seq != 0) {
            return new StreamId(ms, seq - 1);
        }
        return ms == 0 ? null : new StreamId(ms - 1, -1L);
    }

    public void writeTo(ByteBuffer b) {
        b.putLong(ms).putLong(seq);
    }

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        writeTo(b);
        return b.array();
    }

    public static StreamId readFrom(ByteBuffer b) {
        return new StreamId(b.getLong(), b.getLong());
    }

    public static StreamId decode(byte[] raw, int offset) {
        ByteBuffer b = ByteBuffer.wrap(raw, offset, BYTES);
        return new StreamId(b.getLong(), b.getLong());
    }

    /** Redis's text: {@code ms-seq} in unsigned decimal. */
    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }
}
