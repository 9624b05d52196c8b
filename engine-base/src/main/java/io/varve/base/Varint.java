package io.varve.base;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Unsigned LEB128 varints: seven value bits per byte, least significant group first, the high bit set on
 * every byte but the last. Small numbers (lengths, mostly) take one byte.
 *
 * <p>Decoding never trusts its input: it stops at {@code limit}, rejects encodings longer than the type
 * allows, and reports failure as {@link #MALFORMED} instead of throwing, so the caller can name the file and
 * offset in its own {@link io.varve.base.CorruptionException}.
 */
public final class Varint {

    /** Longest encoding of a 32-bit value. */
    public static final int MAX_INT_LENGTH = 5;
    /** Longest encoding of a 64-bit value. */
    public static final int MAX_LONG_LENGTH = 10;

    /** Returned by {@link #decodeInt} for a truncated, overlong or out-of-range varint. */
    public static final long MALFORMED = -1L;

    private Varint() {
    }

    /** Bytes needed to encode {@code value}, read as unsigned. */
    public static int encodedLength(long value) {
        int length = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            length++;
        }
        return length;
    }

    /** Writes {@code value} (unsigned) into {@code target} at {@code position}; returns the position after it. */
    public static int write(byte[] target, int position, long value) {
        while ((value & ~0x7FL) != 0) {
            target[position++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        target[position++] = (byte) value;
        return position;
    }

    /**
     * Decodes a varint holding a non-negative int (at most {@link Integer#MAX_VALUE}) that must end before
     * {@code limit}. To stay allocation-free on the read path it returns both results packed in one long:
     * {@code length << 32 | value}; unpack with {@link #value(long)} and {@link #length(long)}.
     *
     * @return the packed result, or {@link #MALFORMED}
     */
    public static long decodeInt(MemorySegment source, long position, long limit) {
        long value = 0;
        for (int i = 0; i < MAX_INT_LENGTH; i++) {
            if (position + i >= limit) {
                return MALFORMED;
            }
            int b = source.get(ValueLayout.JAVA_BYTE, position + i);
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                if (value > Integer.MAX_VALUE) {
                    return MALFORMED;
                }
                return ((long) (i + 1) << 32) | value;
            }
        }
        return MALFORMED;
    }

    /**
     * Decodes a varint holding a non-negative long that must end before {@code limit}. Only the shortest
     * encoding of a value is accepted, so the caller can find where it ended with {@link #encodedLength}.
     *
     * @return the value, or {@link #MALFORMED}
     */
    public static long decodeLong(MemorySegment source, long position, long limit) {
        long value = 0;
        for (int i = 0; i < MAX_LONG_LENGTH - 1; i++) {
            if (position + i >= limit) {
                return MALFORMED;
            }
            int b = source.get(ValueLayout.JAVA_BYTE, position + i);
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                boolean canonical = i == 0 || b != 0;
                return canonical ? value : MALFORMED;
            }
        }
        // Nine groups carry 63 bits; a tenth byte would be needed only for negative values.
        return MALFORMED;
    }

    /** The value part of a {@link #decodeInt} result. */
    public static int value(long packed) {
        return (int) packed;
    }

    /** The encoded length part of a {@link #decodeInt} result. */
    public static int length(long packed) {
        return (int) (packed >>> 32);
    }
}
