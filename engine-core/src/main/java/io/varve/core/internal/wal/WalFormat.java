package io.varve.core.internal.wal;

import io.varve.base.Checksums;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The on-disk layout of a write-ahead log: every constant of the format and the only code that encodes or
 * decodes a record header. {@code docs/formats.md} (section "Write-ahead log") describes the same layout in prose; the two must agree.
 *
 * <pre>
 * file:    | block 0 (32 KiB) | block 1 (32 KiB) | ... | last block (may be short) |
 *
 * block:   | record | record | ... | record | trailer (0..10 zero bytes) |
 *            a record never crosses a block boundary; when fewer than HEADER_SIZE bytes
 *            are left in a block they are zero-filled and the next record starts a new block
 *
 * record:  0                4          6       7               11                     11+length
 *          +----------------+----------+-------+---------------+----------------------+
 *          | masked CRC32C  |  length  | type  |  log number   | payload (length B)   |
 *          | u32 LE         |  u16 LE  |  u8   |  u32 LE       |                      |
 *          +----------------+----------+-------+---------------+----------------------+
 *                                      |------------ covered by the CRC --------------|
 *
 * type:    0 = zero (never written as a header; zero bytes mean padding or unwritten space)
 *          1 = FULL   the whole logical record
 *          2 = FIRST  first fragment of a logical record that did not fit in the block
 *          3 = MIDDLE a fragment that fills a whole block (minus its header)
 *          4 = LAST   final fragment
 * </pre>
 *
 * <p>The CRC covers the type byte, the log number and the payload, which sit contiguously from offset 6, so
 * one checksum pass over {@code [6, 11 + length)} computes it. The log number is the low 32 bits of the WAL
 * file's number: bytes left in a reused or preallocated file by an earlier log carry a different number and
 * can never pass for records of this one. The CRC is masked (rotated and offset, as in LevelDB) because log
 * payloads embed CRCs of their own, and a CRC computed over data ending in its own CRC is a constant.
 */
public final class WalFormat {

    /** Size of a block; records never straddle a block boundary. */
    public static final int BLOCK_SIZE = 32 * 1024;
    /** Size of a record header. */
    public static final int HEADER_SIZE = 11;

    /** Offset in the header of the masked CRC32C (u32 little-endian). */
    public static final int CRC_OFFSET = 0;
    /** Offset in the header of the payload length (u16 little-endian). */
    public static final int LENGTH_OFFSET = 4;
    /** Offset in the header of the record type (u8). */
    public static final int TYPE_OFFSET = 6;
    /** Offset in the header of the log number (u32 little-endian). */
    public static final int LOG_NUMBER_OFFSET = 7;

    /** The largest payload of one physical record: a whole block minus its header. */
    public static final int MAX_FRAGMENT_LENGTH = BLOCK_SIZE - HEADER_SIZE;

    /** Not a record: zero padding at a block's end, or space that was never written. */
    public static final int ZERO_TYPE = 0;
    /** A logical record stored whole. */
    public static final int FULL_TYPE = 1;
    /** The first fragment of a logical record. */
    public static final int FIRST_TYPE = 2;
    /** A fragment between the first and the last. */
    public static final int MIDDLE_TYPE = 3;
    /** The last fragment of a logical record. */
    public static final int LAST_TYPE = 4;

    /** Added after rotating the CRC right by {@link #CRC_MASK_ROTATION} bits (LevelDB's constant). */
    public static final int CRC_MASK_DELTA = Checksums.MASK_DELTA;
    /** How far the CRC is rotated right before {@link #CRC_MASK_DELTA} is added. */
    public static final int CRC_MASK_ROTATION = Checksums.MASK_ROTATION;

    private static final VarHandle U32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private WalFormat() {
    }

    /** A decoded header. {@code length} is unsigned; {@code logNumber} is the stored low 32 bits. */
    record Header(int maskedCrc, int length, int type, int logNumber) {

        boolean isKnownType() {
            return type >= FULL_TYPE && type <= LAST_TYPE;
        }
    }

    /** The 32 bits of a WAL file number that records carry. */
    static int logNumberBits(long logNumber) {
        return (int) logNumber;
    }

    static int mask(int crc) {
        return Checksums.mask(crc);
    }

    static int unmask(int maskedCrc) {
        return Checksums.unmask(maskedCrc);
    }

    /**
     * Fills in the header at {@code buf[offset]} for a payload of {@code length} bytes that the caller has
     * already placed at {@code buf[offset + HEADER_SIZE]}, CRC included.
     */
    static void encodeHeader(byte[] buf, int offset, int type, int logNumber, int length) {
        if (length < 0 || length > MAX_FRAGMENT_LENGTH) {
            throw new IllegalArgumentException("fragment length out of range: " + length);
        }
        U16.set(buf, offset + LENGTH_OFFSET, (short) length);
        buf[offset + TYPE_OFFSET] = (byte) type;
        U32.set(buf, offset + LOG_NUMBER_OFFSET, logNumber);
        U32.set(buf, offset + CRC_OFFSET, mask(storedCrc(buf, offset, length)));
    }

    /**
     * Fills in the header at {@code offset} of {@code buf} for a payload of {@code length} bytes that the caller
     * has already placed right after it, CRC included: the writer's form of {@link #encodeHeader(byte[], int,
     * int, int, int)}, for its native buffer.
     */
    static void encodeHeader(MemorySegment buf, long offset, int type, int logNumber, int length) {
        if (length < 0 || length > MAX_FRAGMENT_LENGTH) {
            throw new IllegalArgumentException("fragment length out of range: " + length);
        }
        buf.set(U16_LE, offset + LENGTH_OFFSET, (short) length);
        buf.set(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET, (byte) type);
        buf.set(U32_LE, offset + LOG_NUMBER_OFFSET, logNumber);
        int crc = Checksums.crc32c(buf, offset + TYPE_OFFSET, HEADER_SIZE - TYPE_OFFSET + length);
        buf.set(U32_LE, offset + CRC_OFFSET, mask(crc));
    }

    /** Decodes the header at {@code buf[offset]}; the caller ensures {@link #HEADER_SIZE} bytes are there. */
    static Header decodeHeader(byte[] buf, int offset) {
        return new Header(
                (int) U32.get(buf, offset + CRC_OFFSET),
                Short.toUnsignedInt((short) U16.get(buf, offset + LENGTH_OFFSET)),
                Byte.toUnsignedInt(buf[offset + TYPE_OFFSET]),
                (int) U32.get(buf, offset + LOG_NUMBER_OFFSET));
    }

    /** Whether the stored CRC matches the record at {@code buf[offset]} as it stands. */
    static boolean checksumMatches(byte[] buf, int offset, Header header) {
        return unmask(header.maskedCrc()) == storedCrc(buf, offset, header.length());
    }

    /**
     * Whether the stored CRC would match if the header carried {@code logNumber} instead of the number it
     * does: that tells a record of this log whose log-number field was damaged from a foreign record.
     */
    static boolean checksumMatchesWithLogNumber(byte[] buf, int offset, Header header, int logNumber) {
        CRC32C crc = new CRC32C();
        crc.update(header.type());
        byte[] number = new byte[4];
        U32.set(number, 0, logNumber);
        crc.update(number);
        crc.update(buf, offset + HEADER_SIZE, header.length());
        return unmask(header.maskedCrc()) == (int) crc.getValue();
    }

    /** CRC32C of type, log number and payload as stored: one contiguous range starting at the type byte. */
    private static int storedCrc(byte[] buf, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(buf, offset + TYPE_OFFSET, HEADER_SIZE - TYPE_OFFSET + length);
        return (int) crc.getValue();
    }

    /**
     * Whether the {@code available} bytes at {@code buf[offset]} (fewer than a header) could be the start of
     * a header of log {@code logNumber} holding at most {@code maxLength} payload bytes. A header torn by a
     * crash is a prefix of one the writer wrote, so every field it holds whole is valid and its log-number
     * bytes are this log's; anything else is bytes of some other origin.
     */
    static boolean couldBeHeaderPrefix(byte[] buf, int offset, int available, int logNumber, int maxLength) {
        if (available >= LENGTH_OFFSET + 2
                && Short.toUnsignedInt((short) U16.get(buf, offset + LENGTH_OFFSET)) > maxLength) {
            return false;
        }
        if (available > TYPE_OFFSET) {
            int type = Byte.toUnsignedInt(buf[offset + TYPE_OFFSET]);
            if (type < FULL_TYPE || type > LAST_TYPE) {
                return false;
            }
        }
        for (int i = LOG_NUMBER_OFFSET; i < available; i++) {
            if (buf[offset + i] != (byte) (logNumber >>> (8 * (i - LOG_NUMBER_OFFSET)))) {
                return false;
            }
        }
        return true;
    }

    static boolean isAllZero(byte[] buf, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (buf[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Bytes that appending a payload of {@code payloadLength} bytes adds to a log whose logical size is
     * {@code logOffset}: headers, payload and any block trailer padding skipped first.
     */
    public static long encodedLength(long logOffset, long payloadLength) {
        if (logOffset < 0 || payloadLength < 0) {
            throw new IllegalArgumentException("negative offset or length");
        }
        long total = 0;
        int blockOffset = (int) (logOffset % BLOCK_SIZE);
        long remaining = payloadLength;
        do {
            int room = BLOCK_SIZE - blockOffset;
            if (room < HEADER_SIZE) {
                total += room;
                blockOffset = 0;
                room = BLOCK_SIZE;
            }
            long fragment = Math.min(remaining, room - HEADER_SIZE);
            total += HEADER_SIZE + fragment;
            blockOffset += HEADER_SIZE + (int) fragment;
            remaining -= fragment;
        } while (remaining > 0);
        return total;
    }
}
