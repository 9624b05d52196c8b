package io.varve.raftlog.format;

import io.varve.core.base.CorruptionException;
import java.nio.file.Path;

/**
 * Layout of one write batch inside a log file (docs/raftlog-format.md, "Batch"): a fixed 28-byte header,
 * the entries block, then the footer. All integers are little-endian.
 *
 * <pre>
 * header
 * offset size field
 *  0      4   magic, the ASCII bytes "VRLB"
 *  4      1   flags: bit 0 = entries block is LZ4-compressed; other bits zero
 *  5      3   reserved, zero
 *  8      4   stored length of the entries block (bytes on disk)
 * 12      4   raw length of the entries block (after decompression)
 * 16      4   footer length
 * 20      4   CRC32C of the stored entries block
 * 24      4   footer checksum: CRC32C(header[0, 24) ++ footer) XOR fileBinding(queue, sequence)
 * </pre>
 *
 * The entries block is a sequence of records {@code varint length, payload}; the footer lists items (see
 * {@link FooterCodec}). Binding the footer checksum to the file makes bytes left over from another file
 * (or another queue) fail validation even if they are otherwise intact.
 */
public final class BatchFormat {
    public static final int MAGIC = 0x424C5256; // "VRLB" read as a little-endian int
    public static final int HEADER_SIZE = 28;

    public static final int OFFSET_MAGIC = 0;
    public static final int OFFSET_FLAGS = 4;
    public static final int OFFSET_STORED_LENGTH = 8;
    public static final int OFFSET_RAW_LENGTH = 12;
    public static final int OFFSET_FOOTER_LENGTH = 16;
    public static final int OFFSET_ENTRIES_CRC = 20;
    public static final int OFFSET_FOOTER_CRC = 24;
    /** The footer checksum covers the header up to (not including) itself. */
    public static final int CHECKED_HEADER_LENGTH = OFFSET_FOOTER_CRC;

    public static final int FLAG_LZ4 = 1;
    public static final int KNOWN_FLAGS = FLAG_LZ4;

    /** Largest raw entries block; keeps every in-block offset a non-negative int. */
    public static final int MAX_RAW_ENTRIES = 1 << 30;
    public static final int MAX_FOOTER = 1 << 28;

    // Footer item types (one byte each).
    public static final int ITEM_ENTRIES = 1;
    public static final int ITEM_CLEAN = 2;
    public static final int ITEM_COMPACT = 3;
    public static final int ITEM_PUT = 4;
    public static final int ITEM_DELETE = 5;
    /** Written only by purge: keep exactly the entries in [first, first + count) of the group. */
    public static final int ITEM_RETAIN = 6;
    /** Written only by purge: drop every key/value of the group (a snapshot of its puts follows). */
    public static final int ITEM_CLEAR_STATE = 7;
    /**
     * Written only by purge, last in its last batch: everything the rewrite queue received since the previous
     * COMMIT is complete. Recovery ignores (and removes) rewrite-queue batches after the last COMMIT. The group
     * field is always 0.
     */
    public static final int ITEM_COMMIT = 8;

    private BatchFormat() {
    }

    /** A stable 32-bit value distinct for every (queue, sequence) with sequence below 2^31. */
    public static int fileBinding(int queue, long sequence) {
        int h = (int) ((sequence << 1) | queue);
        // murmur3 fmix32: a bijection on ints, so distinct files get distinct bindings.
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    /** The decoded fixed header of a batch. */
    public record Header(int flags, int storedLength, int rawLength, int footerLength, int entriesCrc,
            int footerCrc) {

        public boolean compressed() {
            return (flags & FLAG_LZ4) != 0;
        }

        /** Bytes from the start of the header to the end of the footer. */
        public long totalLength() {
            return (long) HEADER_SIZE + storedLength + footerLength;
        }

        /**
         * Decodes and sanity-checks a header. It is not trusted until the footer checksum (which covers it)
         * has been verified.
         */
        public static Header decode(byte[] b, int off, Path file, long fileOffset) throws CorruptionException {
            int magic = ByteSink.getIntLE(b, off + OFFSET_MAGIC);
            if (magic != MAGIC) {
                throw new CorruptionException(file, fileOffset, String.format("bad batch magic 0x%08x", magic));
            }
            int flags = b[off + OFFSET_FLAGS] & 0xFF;
            if ((flags & ~KNOWN_FLAGS) != 0 || b[off + 5] != 0 || b[off + 6] != 0 || b[off + 7] != 0) {
                throw new CorruptionException(file, fileOffset + OFFSET_FLAGS, "unknown batch flags " + flags);
            }
            int stored = ByteSink.getIntLE(b, off + OFFSET_STORED_LENGTH);
            int raw = ByteSink.getIntLE(b, off + OFFSET_RAW_LENGTH);
            int footer = ByteSink.getIntLE(b, off + OFFSET_FOOTER_LENGTH);
            if (raw < 0 || raw > MAX_RAW_ENTRIES || stored < 0
                    || ((flags & FLAG_LZ4) == 0 ? stored != raw : stored > maxCompressedLength(raw))) {
                throw new CorruptionException(file, fileOffset + OFFSET_STORED_LENGTH,
                        "impossible entries block lengths: stored " + stored + ", raw " + raw);
            }
            if (footer <= 0 || footer > MAX_FOOTER) {
                throw new CorruptionException(file, fileOffset + OFFSET_FOOTER_LENGTH,
                        "impossible footer length " + footer);
            }
            return new Header(flags, stored, raw, footer, ByteSink.getIntLE(b, off + OFFSET_ENTRIES_CRC),
                    ByteSink.getIntLE(b, off + OFFSET_FOOTER_CRC));
        }
    }

    /** LZ4's worst case for incompressible input, the bound a compressed block can never exceed. */
    public static int maxCompressedLength(int raw) {
        return raw + raw / 255 + 16;
    }
}
