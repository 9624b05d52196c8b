package io.varve.core.internal.wal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The first logical record of a log started by a rotation: it names the log it follows and that log's final
 * length. Described in docs/formats.md (section "Log predecessor record"); the constants below must agree.
 *
 * <pre>
 *   0                8           12                    20                    28
 *   +----------------+-----------+---------------------+---------------------+
 *   | zero (u64)     | zero (u32)| predecessor number  | predecessor length  |
 *   +----------------+-----------+---------------------+---------------------+
 * </pre>
 *
 * <p>Why it exists: the old log's final fsync runs in the background after the rotation, so after a machine
 * crash the old log may have lost its unsynced tail while the OS had already written back part of the new
 * one. Recovery compares the length named here with what it read of the predecessor; a shorter predecessor
 * means writes in between are gone, and everything from this log on is dropped rather than replayed after a
 * hole.
 *
 * <p>The first twelve bytes sit where a write batch keeps its sequence and record count; the count is zero,
 * which no logged batch has (the pipeline never logs an empty batch), so the two payloads cannot be confused.
 */
public final class PredecessorRecord {

    /** Offset of the u32 that is a batch's record count; zero here. */
    public static final int COUNT_OFFSET = 8;
    /** Offset of the predecessor's full log number (u64 little-endian). */
    public static final int LOG_NUMBER_OFFSET = 12;
    /** Offset of the predecessor's length in bytes when it was sealed (u64 little-endian). */
    public static final int LENGTH_OFFSET = 20;
    /** Payload bytes: the record is exactly this long. */
    public static final int SIZE = 28;

    /** The log a rotation sealed and how many bytes it held then. */
    public record Link(long logNumber, long length) {
    }

    private PredecessorRecord() {
    }

    public static byte[] encode(long logNumber, long length) {
        if (logNumber < 0 || length < 0) {
            throw new IllegalArgumentException("negative log number " + logNumber + " or length " + length);
        }
        ByteBuffer out = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(LOG_NUMBER_OFFSET, logNumber);
        out.putLong(LENGTH_OFFSET, length);
        return out.array();
    }

    /**
     * The link a payload holds, or null if the payload is not a predecessor record (a batch always has a
     * non-zero count). A payload with a zero count but another length is neither and is left to the batch
     * parser, which rejects it as malformed.
     */
    public static Link decode(byte[] payload) {
        if (payload.length != SIZE) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        if (in.getLong(0) != 0 || in.getInt(COUNT_OFFSET) != 0) {
            return null;
        }
        long number = in.getLong(LOG_NUMBER_OFFSET);
        long length = in.getLong(LENGTH_OFFSET);
        return number < 0 || length < 0 ? null : new Link(number, length);
    }
}
