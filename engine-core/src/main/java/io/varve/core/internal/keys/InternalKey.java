package io.varve.core.internal.keys;

import java.lang.foreign.MemorySegment;

/**
 * The engine orders entries by (user key ascending, trailer descending), where the 64-bit trailer packs
 * {@code sequence << 8 | kind}. So for one user key the newest entry comes first, and seeking to
 * {@code (key, seekTrailer(s))} lands on the newest entry visible at snapshot sequence {@code s}.
 *
 * <pre>
 *   trailer: | sequence (56 bits) | kind code (8 bits) |
 * </pre>
 */
public final class InternalKey {

    public static final int TRAILER_SIZE = 8;
    public static final long MAX_SEQUENCE = (1L << 56) - 1;

    private InternalKey() {
    }

    public static long trailer(long sequence, ValueKind kind) {
        return (sequence << 8) | kind.code();
    }

    /** The trailer that sorts before every entry of a user key with sequence {@code <= sequence}. */
    public static long seekTrailer(long sequence) {
        return (sequence << 8) | 0xFF;
    }

    public static long sequence(long trailer) {
        return trailer >>> 8;
    }

    public static int kindCode(long trailer) {
        return (int) (trailer & 0xFF);
    }

    /** Compares internal keys: user keys as unsigned bytes, then trailers descending. */
    public static int compare(MemorySegment userKeyA, long trailerA, MemorySegment userKeyB, long trailerB) {
        int c = Keys.compare(userKeyA, userKeyB);
        if (c != 0) {
            return c;
        }
        return Long.compareUnsigned(trailerB, trailerA);
    }
}
