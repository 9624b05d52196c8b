package io.varve.raftlog.format;

import io.varve.base.Varint;

import io.varve.base.CorruptionException;
import java.nio.file.Path;

/**
 * Layout of one write batch inside a log file (docs/raftlog-format.md, "Batch"): a variable-length header,
 * the footer, then the entries block. Fixed-width integers are little-endian, lengths are varints.
 *
 * <pre>
 * header
 *   u8      flags: bit 0 = entries block LZ4-compressed, bit 1 = the batch has an entries block
 *   varint  footer length
 *   varint  stored length of the entries block      only with FLAG_LZ4 (otherwise it is the raw length)
 *   u32     CRC32C of the stored entries block       only with FLAG_ENTRIES
 *   u32     footer checksum: CRC32C(header bytes before it ++ footer) XOR fileBinding(queue, sequence)
 * footer    items (see {@link FooterCodec}); they also give the raw entries length, the sum of entry lengths
 * entries   the payloads back to back, no framing
 * </pre>
 *
 * Why this shape: a batch of a few small entries must cost few bytes beyond its payload, so nothing the footer
 * already says (raw length, entry offsets) is stored twice, and absent parts cost nothing. The footer comes
 * before the entries so that recovery and readers find it right after the header, in the same read. Binding
 * the footer checksum to the file makes bytes left over from another file (or another queue) fail validation
 * even if they are otherwise intact.
 */
public final class BatchFormat {
    public static final int FLAG_LZ4 = 1;
    public static final int FLAG_ENTRIES = 2;
    public static final int KNOWN_FLAGS = FLAG_LZ4 | FLAG_ENTRIES;

    public static final int CRC_SIZE = 4;
    /** Flags, a one-byte footer length and the footer checksum: a batch with neither entries nor compression. */
    public static final int MIN_HEADER_SIZE = 1 + 1 + CRC_SIZE;
    /** Flags, two five-byte varints and both checksums. */
    public static final int MAX_HEADER_SIZE = 1 + 5 + 5 + CRC_SIZE + CRC_SIZE;

    /** Largest raw entries block; keeps every in-block offset a non-negative int. */
    public static final int MAX_RAW_ENTRIES = 1 << 30;
    public static final int MAX_FOOTER = 1 << 28;

    // Footer item tags: the type in the low four bits, two modifier bits on top.
    public static final int TYPE_MASK = 0x0F;
    /** The item's group is the previous item's and is not written. Never on the first item of a footer. */
    public static final int TAG_SAME_GROUP = 0x80;
    /** On ENTRIES only: the item holds exactly one entry and its count is not written. */
    public static final int TAG_ONE_ENTRY = 0x40;

    // Footer item types.
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
     * commit is complete. Recovery ignores (and removes) rewrite-queue batches after the last commit. The group
     * field is always 0; then four varints: the append file and length up to which the purge had synced the
     * append queue, and the oldest append and rewrite files that must survive it (recovery refuses to cut
     * below them, see docs/raftlog.md "Recovery").
     */
    public static final int ITEM_COMMIT = 9;
    /** Version 3's commit: the group (0) and nothing else. Read, never written. */
    public static final int ITEM_COMMIT_V3 = 8;

    private BatchFormat() {
    }

    /** A stable 32-bit value distinct for every (queue, sequence) with sequence below 2^30. */
    public static int fileBinding(int queue, long sequence) {
        return fmix32((int) ((sequence << 1) | queue));
    }

    /**
     * The binding of a batch written when every earlier byte of its file was synced: fmix32 of the file's
     * input with bit 31 set. Sequence numbers are below 2^27, so these inputs never meet plain ones and every
     * binding, plain or after a sync, of every file differs from all others. Recovery uses the difference to
     * tell a damaged batch (a later batch says it was durable) from a torn one in a recycled file.
     */
    public static int afterSyncBinding(int fileBinding) {
        return fmix32(unfmix32(fileBinding) | AFTER_SYNC_BIT);
    }

    private static final int AFTER_SYNC_BIT = 0x8000_0000;
    private static final int M1 = 0x85ebca6b;
    private static final int M2 = 0xc2b2ae35;
    private static final int M1_INVERSE = inverse(M1);
    private static final int M2_INVERSE = inverse(M2);

    /** murmur3's fmix32: a bijection on ints, so distinct inputs get distinct bindings. */
    static int fmix32(int h) {
        h ^= h >>> 16;
        h *= M1;
        h ^= h >>> 13;
        h *= M2;
        h ^= h >>> 16;
        return h;
    }

    static int unfmix32(int h) {
        h ^= h >>> 16;
        h *= M2_INVERSE;
        h ^= (h >>> 13) ^ (h >>> 26);
        h *= M1_INVERSE;
        h ^= h >>> 16;
        return h;
    }

    /** The multiplicative inverse of an odd int modulo 2^32 (Newton's iteration doubles the correct bits). */
    private static int inverse(int odd) {
        int x = odd;
        for (int i = 0; i < 5; i++) {
            x *= 2 - odd * x;
        }
        return x;
    }

    /** LZ4's worst case for incompressible input, the bound a compressed block can never exceed. */
    public static int maxCompressedLength(int raw) {
        return raw + raw / 255 + 16;
    }

    /** Bytes of the header for these fields. */
    static int headerSize(int flags, int footerLength, int storedLength) {
        return 1 + Varint.encodedLength(footerLength) + ((flags & FLAG_LZ4) != 0 ? Varint.encodedLength(storedLength) : 0)
                + ((flags & FLAG_ENTRIES) != 0 ? CRC_SIZE : 0) + CRC_SIZE;
    }

    /**
     * Writes a header at the start of {@code out}, its footer checksum still zero; returns the offset of that
     * checksum (the header ends 4 bytes later).
     *
     * @param storedLength written only when {@code flags} has {@link #FLAG_LZ4}
     */
    static int encodeHeader(byte[] out, int flags, int footerLength, int storedLength, int entriesCrc) {
        out[0] = (byte) flags;
        int at = Varint.write(out, 1, footerLength);
        if ((flags & FLAG_LZ4) != 0) {
            at = Varint.write(out, at, storedLength);
        }
        if ((flags & FLAG_ENTRIES) != 0) {
            ByteSink.putIntLE(out, at, entriesCrc);
            at += CRC_SIZE;
        }
        ByteSink.putIntLE(out, at, 0);
        return at;
    }

    /**
     * The decoded header of a batch. It is not trusted until the footer checksum (which covers it) has been
     * verified, and the entries block's size is only known once the footer is decoded: see
     * {@link #blockLength(long, Path, long)}.
     *
     * @param storedLength the stored entries length from the header, or -1 when it is the raw length
     * @param length bytes of the header itself; the footer starts right after it
     */
    public record Header(int flags, int footerLength, int storedLength, int entriesCrc, int footerCrc,
            int length) {

        public boolean compressed() {
            return (flags & FLAG_LZ4) != 0;
        }

        public boolean hasEntries() {
            return (flags & FLAG_ENTRIES) != 0;
        }

        /** Bytes the footer checksum covers before the footer: the header up to its last field. */
        public int checkedLength() {
            return length - CRC_SIZE;
        }

        /**
         * The stored length of the entries block once the footer gave the raw length; checks that the header
         * and the footer agree.
         *
         * @param batchOffset file offset of the batch, for error messages
         */
        public int blockLength(long rawLength, Path file, long batchOffset) throws CorruptionException {
            if (rawLength > MAX_RAW_ENTRIES) {
                throw new CorruptionException(file, batchOffset, "entries of " + rawLength + " bytes exceed the "
                        + MAX_RAW_ENTRIES + "-byte limit");
            }
            if (hasEntries() != (rawLength > 0)) {
                throw new CorruptionException(file, batchOffset, "flags " + flags + " disagree with a footer of "
                        + rawLength + " entry bytes");
            }
            if (!compressed()) {
                return (int) rawLength;
            }
            if (storedLength > maxCompressedLength((int) rawLength)) {
                throw new CorruptionException(file, batchOffset, "compressed entries block of " + storedLength
                        + " bytes cannot hold " + rawLength + " raw bytes");
            }
            return storedLength;
        }

        /**
         * Decodes a header from {@code b[off, off + available)}.
         *
         * @param fileOffset file offset of {@code b[off]}, for error messages
         * @throws CorruptionException if the bytes cannot be a header, or {@code available} ends inside it
         */
        public static Header decode(byte[] b, int off, int available, Path file, long fileOffset)
                throws CorruptionException {
            ByteCursor in = new ByteCursor(b, off, off + available, file, fileOffset - off);
            int flags = in.u8();
            if ((flags & ~KNOWN_FLAGS) != 0 || flags == FLAG_LZ4) {
                throw new CorruptionException(file, fileOffset, "bad batch flags " + flags);
            }
            int footerAt = in.position();
            int footer = in.boundedInt(MAX_FOOTER, "footer length");
            if (footer == 0) {
                throw in.corrupt(footerAt, "empty footer");
            }
            int stored = -1;
            if ((flags & FLAG_LZ4) != 0) {
                stored = in.boundedInt(maxCompressedLength(MAX_RAW_ENTRIES), "stored entries length");
            }
            int entriesCrc = (flags & FLAG_ENTRIES) != 0 ? in.intLE() : 0;
            int footerCrc = in.intLE();
            return new Header(flags, footer, stored, entriesCrc, footerCrc, in.position() - off);
        }
    }
}
