package io.varve.core.internal.sst;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Helpers for internal keys as stored in table blocks: the user key bytes followed by the 8-byte trailer,
 * little-endian (see {@link TableFormat}). Comparisons work on ranges of segments so the read path does
 * not need to allocate slices.
 */
public final class InternalKeys {

    /** "No global sequence": entries keep the sequence they were written with. */
    static final long NO_GLOBAL_SEQUENCE = -1L;

    private static final int MAX_DESCRIBED_BYTES = 64;
    private static final ValueLayout.OfLong FIXED64 =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private InternalKeys() {
    }

    /**
     * Compares {@code a[aFrom, aTo)} with {@code b[bFrom, bTo)} as unsigned bytes, shorter prefix first
     * ({@link Keys#compare(MemorySegment, long, long, MemorySegment, long, long)} with end offsets); only the
     * sign of the result is meaningful.
     */
    static int compareBytes(MemorySegment a, long aFrom, long aTo, MemorySegment b, long bFrom, long bTo) {
        return Keys.compare(a, aFrom, aTo - aFrom, b, bFrom, bTo - bFrom);
    }

    /**
     * Compares a stored internal key, {@code a[aFrom, aTo)} holding user key then trailer {@code aTrailer}
     * (already decoded), with the internal key {@code (userKey, trailer)}.
     */
    static int compare(MemorySegment a, long aFrom, long aUserKeyEnd, long aTrailer,
                       MemorySegment userKey, long trailer) {
        int c = compareBytes(a, aFrom, aUserKeyEnd, userKey, 0, userKey.byteSize());
        if (c != 0) {
            return c;
        }
        return Long.compareUnsigned(trailer, aTrailer);
    }

    /** Reads the little-endian trailer stored at {@code position}. */
    static long readTrailer(MemorySegment segment, long position) {
        return segment.get(FIXED64, position);
    }

    static long readTrailer(byte[] bytes, int position) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = (value << 8) | (bytes[position + i] & 0xFFL);
        }
        return value;
    }

    static void writeTrailer(byte[] bytes, int position, long trailer) {
        for (int i = 0; i < 8; i++) {
            bytes[position + i] = (byte) (trailer >>> (8 * i));
        }
    }

    /**
     * The trailer a reader presents for a stored trailer. With a global sequence (an ingested table whose
     * entries were all written at sequence 0), sequence 0 reads as the global sequence; the kind is kept.
     * This mapping preserves order among the entries of such a table, so searches stay correct.
     */
    static long present(long storedTrailer, long globalSequence) {
        if (globalSequence < 0 || (storedTrailer >>> 8) != 0) {
            return storedTrailer;
        }
        return (globalSequence << 8) | (storedTrailer & 0xFF);
    }

    /** A human-readable rendering for error messages: printable ASCII as is, other bytes as \xNN. */
    static String describe(MemorySegment userKey, long trailer) {
        ValueKind valueKind = ValueKind.pointKindOrNull(InternalKey.kindCode(trailer));
        String kind = valueKind == null ? "kind " + InternalKey.kindCode(trailer) : valueKind.name();
        return "'" + describeBytes(userKey) + "' @ seq " + InternalKey.sequence(trailer) + " " + kind;
    }

    public static String describeBytes(MemorySegment bytes) {
        StringBuilder text = new StringBuilder();
        long shown = Math.min(bytes.byteSize(), MAX_DESCRIBED_BYTES);
        for (long i = 0; i < shown; i++) {
            int b = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, i));
            if (b >= 0x20 && b < 0x7F && b != '\\' && b != '\'') {
                text.append((char) b);
            } else {
                text.append(String.format("\\x%02x", b));
            }
        }
        if (shown < bytes.byteSize()) {
            text.append("...(").append(bytes.byteSize()).append(" bytes)");
        }
        return text.toString();
    }
}
