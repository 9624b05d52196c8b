package io.varve.raftlog.format;

import io.varve.core.base.CorruptionException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The 32-byte header that starts every log file (docs/raftlog-format.md, "File header"). All integers are
 * little-endian.
 *
 * <pre>
 * offset size field
 *  0      8   magic, the ASCII bytes "VARVRLOG"
 *  8      4   format version (2)
 * 12      1   queue: 0 = append, 1 = rewrite
 * 13      3   reserved, zero
 * 16      8   file sequence number (&gt;= 1), equal to the one in the file name
 * 24      4   CRC32C of bytes [0, 24)
 * 28      4   reserved, zero
 * </pre>
 */
public final class LogFileFormat {
    public static final byte[] MAGIC = "VARVRLOG".getBytes(StandardCharsets.US_ASCII);
    public static final int VERSION = 2;
    public static final int HEADER_SIZE = 32;

    public static final int QUEUE_APPEND = 0;
    public static final int QUEUE_REWRITE = 1;

    public static final int OFFSET_MAGIC = 0;
    public static final int OFFSET_VERSION = 8;
    public static final int OFFSET_QUEUE = 12;
    public static final int OFFSET_SEQUENCE = 16;
    public static final int OFFSET_CRC = 24;

    /** Sequence numbers must fit the in-memory location encoding (see io.varve.raftlog.index.Location). */
    public static final long MAX_SEQUENCE = (1L << 27) - 1;

    public static final String APPEND_SUFFIX = ".append";
    public static final String REWRITE_SUFFIX = ".rewrite";
    /** Sequence numbers are written as 16 zero-padded decimal digits so names sort in sequence order. */
    public static final int NAME_DIGITS = 16;
    public static final String TEMP_SUFFIX = ".tmp";
    public static final String LOCK_NAME = "LOCK";

    private LogFileFormat() {
    }

    public static byte[] encodeHeader(int queue, long sequence) {
        byte[] h = new byte[HEADER_SIZE];
        System.arraycopy(MAGIC, 0, h, OFFSET_MAGIC, MAGIC.length);
        ByteSink.putIntLE(h, OFFSET_VERSION, VERSION);
        h[OFFSET_QUEUE] = (byte) queue;
        ByteSink.putLongLE(h, OFFSET_SEQUENCE, sequence);
        ByteSink.putIntLE(h, OFFSET_CRC, crc(h));
        return h;
    }

    /** Validates a header read from {@code file}, which the directory listing says is (queue, sequence). */
    public static void checkHeader(byte[] h, Path file, int queue, long sequence) throws CorruptionException {
        if (h.length < HEADER_SIZE) {
            throw new CorruptionException(file, 0, "file shorter than its " + HEADER_SIZE + "-byte header");
        }
        if (!Arrays.equals(h, OFFSET_MAGIC, OFFSET_MAGIC + MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new CorruptionException(file, OFFSET_MAGIC, "bad file magic");
        }
        if (ByteSink.getIntLE(h, OFFSET_CRC) != crc(h)) {
            throw new CorruptionException(file, OFFSET_CRC, "file header checksum mismatch");
        }
        int version = ByteSink.getIntLE(h, OFFSET_VERSION);
        if (version != VERSION) {
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
    }

    private static int crc(byte[] h) {
        CRC32C crc = new CRC32C();
        crc.update(h, 0, OFFSET_CRC);
        return (int) crc.getValue();
    }
}
