package io.varve.server.store;

/**
 * Sorted-set scores as 8 bytes whose unsigned byte order is the numeric order, so the score index of a
 * sorted set ({@link ZSetStore}) is an ordered engine range. The IEEE 754 bits of a positive double already
 * sort as unsigned integers once the sign bit is set; those of a negative double sort in reverse, so all
 * their bits are flipped. -inf encodes lowest and +inf highest. -0.0 is stored as 0.0 (Redis compares
 * them as equal, and one encoding keeps ties ordered by member alone); NaN never reaches the codec.
 */
public final class ScoreCodec {

    public static final int LENGTH = 8;

    private ScoreCodec() {
    }

    /** The score to store: -0.0 becomes 0.0. */
    public static double normalize(double score) {
        return score == 0 ? 0.0 : score;
    }

    public static long sortableBits(double score) {
        long bits = Double.doubleToLongBits(normalize(score));
        return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
    }

    public static double fromSortableBits(long sortable) {
        long bits = sortable < 0 ? sortable ^ Long.MIN_VALUE : ~sortable;
        return Double.longBitsToDouble(bits);
    }

    /** Writes the order-preserving form of {@code score} at {@code out[offset, offset + 8)}. */
    public static void encode(double score, byte[] out, int offset) {
        long v = sortableBits(score);
        for (int i = LENGTH - 1; i >= 0; i--) {
            out[offset + i] = (byte) v;
            v >>>= 8;
        }
    }

    public static double decode(byte[] in, int offset) {
        long v = 0;
        for (int i = 0; i < LENGTH; i++) {
            v = (v << 8) | (in[offset + i] & 0xFF);
        }
        return fromSortableBits(v);
    }

    /** The raw IEEE 754 bits, big-endian: the value of a member subkey. */
    public static byte[] valueBytes(double score) {
        byte[] out = new byte[LENGTH];
        long v = Double.doubleToLongBits(normalize(score));
        for (int i = LENGTH - 1; i >= 0; i--) {
            out[i] = (byte) v;
            v >>>= 8;
        }
        return out;
    }

    public static double fromValueBytes(byte[] in) {
        if (in.length != LENGTH) {
            throw new IllegalStateException("sorted-set score value of " + in.length + " bytes");
        }
        long v = 0;
        for (int i = 0; i < LENGTH; i++) {
            v = (v << 8) | (in[i] & 0xFF);
        }
        return Double.longBitsToDouble(v);
    }
}
