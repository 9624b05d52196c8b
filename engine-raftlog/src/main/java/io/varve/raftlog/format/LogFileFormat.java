package io.varve.raftlog.format;

import io.varve.base.CorruptionException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The header that starts every log file (docs/raftlog-format.md, "File header"). All integers are
 * little-endian. Version 4 (written) and version 3 (still read; its purge commits record no positions) are
 * 40 bytes; version 2 (still read) is the first 32 with the CRC at 24, no flags and no previous end.
 *
 * <pre>
 * offset size field (versions 3 and 4)
 *  0      8   magic, the ASCII bytes "VARVRLOG"
 *  8      4   format version (4)
 * 12      1   queue: 0 = append, 1 = rewrite
 * 13      1   flags: bit 0 = recycled (written over an older file: bytes after the last batch may be stale)
 * 14      2   reserved, zero
 * 16      8   file sequence number (&gt;= 1), equal to the one in the file name
 * 24      8   previous end: length of the queue's file sequence - 1 when this one was created, 0 = not recorded
 * 32      4   CRC32C of bytes [0, 32)
 * 36      4   reserved, zero
 * </pre>
 */
public final class LogFileFormat {
    public static final byte[] MAGIC = "VARVRLOG".getBytes(StandardCharsets.US_ASCII);
    public static final int VERSION = 4;
    /** Same header and batches as version 4, but its purge commits record no positions (still read). */
    public static final int VERSION_3 = 3;
    /** The oldest version still read: same batches, a 32-byte header without flags and previous end. */
    public static final int VERSION_2 = 2;
    public static final int HEADER_SIZE = 40;
    public static final int HEADER_SIZE_V2 = 32;

    public static final int QUEUE_APPEND = 0;
    public static final int QUEUE_REWRITE = 1;

    public static final int FLAG_RECYCLED = 1;

    public static final int OFFSET_MAGIC = 0;
    public static final int OFFSET_VERSION = 8;
    public static final int OFFSET_QUEUE = 12;
    public static final int OFFSET_FLAGS = 13;
    public static final int OFFSET_SEQUENCE = 16;
    public static final int OFFSET_PREVIOUS_END = 24;
    public static final int OFFSET_CRC = 32;
    public static final int OFFSET_CRC_V2 = 24;

    /** Sequence numbers must fit the in-memory location encoding (see io.varve.raftlog.index.Location). */
    public static final long MAX_SEQUENCE = (1L << 27) - 1;

    public static final String APPEND_SUFFIX = ".append";
    public static final String REWRITE_SUFFIX = ".rewrite";
    /** A purged append file kept to be written over by a later one (named after its last sequence). */
    public static final String RECYCLE_SUFFIX = ".recycle";
    /** Sequence numbers are written as 16 zero-padded decimal digits so names sort in sequence order. */
    public static final int NAME_DIGITS = 16;
    public static final String TEMP_SUFFIX = ".tmp";
    public static final String LOCK_NAME = "LOCK";

    /** What a valid header says beyond the queue and sequence (which must match the name). */
    public record FileHeader(int version, int size, boolean recycled, long previousEnd) {
    }

    private LogFileFormat() {
    }

    public static byte[] encodeHeader(int queue, long sequence) {
        return encodeHeader(queue, sequence, false, 0);
    }

    public static byte[] encodeHeader(int queue, long sequence, boolean recycled, long previousEnd) {
        byte[] h = new byte[HEADER_SIZE];
        System.arraycopy(MAGIC, 0, h, OFFSET_MAGIC, MAGIC.length);
        ByteSink.putIntLE(h, OFFSET_VERSION, VERSION);
        h[OFFSET_QUEUE] = (byte) queue;
        h[OFFSET_FLAGS] = (byte) (recycled ? FLAG_RECYCLED : 0);
        ByteSink.putLongLE(h, OFFSET_SEQUENCE, sequence);
        ByteSink.putLongLE(h, OFFSET_PREVIOUS_END, previousEnd);
        ByteSink.putIntLE(h, OFFSET_CRC, crc(h, OFFSET_CRC));
        return h;
    }

    /**
     * Validates the start of {@code file} (at least {@link #HEADER_SIZE} bytes of it, or all of it if
     * shorter), which the directory listing says is (queue, sequence).
     */
    public static FileHeader checkHeader(byte[] h, Path file, int queue, long sequence) throws CorruptionException {
        if (h.length < HEADER_SIZE_V2) {
            throw new CorruptionException(file, 0, "file shorter than its header");
        }
        if (!Arrays.equals(h, OFFSET_MAGIC, OFFSET_MAGIC + MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new CorruptionException(file, OFFSET_MAGIC, "bad file magic");
        }
        int version = ByteSink.getIntLE(h, OFFSET_VERSION);
        int size = version == VERSION_2 ? HEADER_SIZE_V2 : HEADER_SIZE;
        int crcAt = version == VERSION_2 ? OFFSET_CRC_V2 : OFFSET_CRC;
        if (h.length < size) {
            throw new CorruptionException(file, 0, "file shorter than its " + size + "-byte header");
        }
        if (ByteSink.getIntLE(h, crcAt) != crc(h, crcAt)) {
            throw new CorruptionException(file, crcAt, "file header checksum mismatch");
        }
        if (version != VERSION && version != VERSION_3 && version != VERSION_2) {
            throw new CorruptionException(file, OFFSET_VERSION, "unsupported format version " + version);
        }
        if (h[OFFSET_QUEUE] != queue) {
            throw new CorruptionException(file, OFFSET_QUEUE, "header says queue " + h[OFFSET_QUEUE]
                    + " but the file name says " + queue);
        }
        long seq = ByteSink.getLongLE(h, OFFSET_SEQUENCE);
        if (seq != sequence) {
            throw new CorruptionException(file, OFFSET_SEQUENCE, "header says sequence " + seq
                    + " but the file name says " + sequence);
        }
        if (version == VERSION_2) {
            return new FileHeader(version, size, false, 0);
        }
        int flags = h[OFFSET_FLAGS] & 0xFF;
        if ((flags & ~FLAG_RECYCLED) != 0) {
            throw new CorruptionException(file, OFFSET_FLAGS, "unknown file flags " + flags);
        }
        long previousEnd = ByteSink.getLongLE(h, OFFSET_PREVIOUS_END);
        if (previousEnd < 0) {
            throw new CorruptionException(file, OFFSET_PREVIOUS_END, "negative previous end " + previousEnd);
        }
        return new FileHeader(version, size, flags != 0, previousEnd);
    }

    private static int crc(byte[] h, int length) {
        CRC32C crc = new CRC32C();
        crc.update(h, 0, length);
        return (int) crc.getValue();
    }
}
