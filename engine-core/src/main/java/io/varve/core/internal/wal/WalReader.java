package io.varve.core.internal.wal;

import io.varve.base.CorruptionException;
import io.varve.base.fs.ReadableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads back the logical records of one write-ahead log, in order, validating every physical record of
 * {@link WalFormat}. It reads a block (32 KiB) per call to the file and keeps one block in memory.
 *
 * <h2>How a read ends</h2>
 * {@link #next()} returns each complete logical record, then exactly one of:
 * <ul>
 *   <li><b>{@code null}: a clean end.</b> {@link #end()} tells which kind:
 *     <ul>
 *       <li>{@link End#END_OF_FILE}: the file ends at a record boundary, or inside a block's zero trailer;</li>
 *       <li>{@link End#ZERO_FILL}: the next header (or the partial header the file ends with) is all zeros,
 *           as in preallocated space or a file a crash extended without its data;</li>
 *       <li>{@link End#STALE_DATA}: the next header carries another log number (bytes left by an earlier
 *           use of a recycled file), a block trailer holds non-zero bytes, or the file ends with a partial
 *           header that cannot be the start of one of this log's (a field it holds whole is invalid, or
 *           its log-number bytes are another log's).</li>
 *     </ul>
 *     A {@code ZERO_FILL} or {@code STALE_DATA} end is only accepted if no later block of the file starts
 *     with a valid record of this log. Every block begins with a record header, so those are the only
 *     places where this log's records can be found without trusting the damaged bytes; finding one means
 *     the log went on past the unreadable bytes, which is corruption (below), not an end.</li>
 *   <li><b>{@link TruncatedRecordException}: a torn tail.</b> The file ends inside a header, inside a
 *     record's payload, or inside a FIRST/MIDDLE chain whose LAST never came (including a chain followed by
 *     zeros or stale bytes). Its offset is where the incomplete logical record starts (its FIRST fragment
 *     for a chain). A partial header at the end of the file is reported this way unless it is all zeros
 *     or provably not this log's (see above).</li>
 *   <li><b>{@link CorruptionException} (not the subclass): damage.</b> A checksum mismatch, an unknown
 *     record type, a length running past the end of its block, MIDDLE or LAST without FIRST, FIRST or FULL
 *     inside an unfinished chain, a log-number field that is wrong although the checksum matches this log's
 *     number, or unreadable bytes followed by a later block holding this log's records. Its offset is that
 *     of the bad record header (or of the first unreadable byte).</li>
 * </ul>
 * Whatever happens, {@link #offset()} is the end of the last complete logical record returned: the length
 * of the valid prefix. Once {@code next()} has ended the read it keeps returning {@code null} or rethrowing
 * the same exception.
 *
 * <h2>Recovery modes</h2>
 * <ul>
 *   <li>POINT_IN_TIME: keep every record returned; on any {@code CorruptionException} (truncation
 *       included) stop there, the log being valid up to {@code offset()}.</li>
 *   <li>TOLERATE_CORRUPTED_TAIL: a {@code TruncatedRecordException} ends the log like {@code null} does;
 *       any other {@code CorruptionException} fails recovery.</li>
 *   <li>ABSOLUTE_CONSISTENCY: any {@code CorruptionException} fails recovery. A mode that also distrusts
 *       zero-filled or stale tails can check {@link #end()}.</li>
 * </ul>
 *
 * <h2>Limits of what can be told apart</h2>
 * A length field damaged so that the record seems to run past the end of the file looks exactly like a
 * torn write and is reported as truncation. So does a recycled file whose old content ends fewer than
 * {@link WalFormat#HEADER_SIZE} bytes after the new log when those few bytes could start a header of the
 * new log (with fewer than 8 of them, no log-number byte is there to tell). Damage that replaces a whole
 * header with bytes carrying another log number in the last block of the file looks exactly like stale
 * data and ends the log cleanly; with a later block of this log present it is reported as corruption. A single damaged byte is always reported
 * as corruption (or, for a length, as truncation): never as a clean end and never as a wrong payload.
 */
public final class WalReader implements AutoCloseable {

    /** Which kind of clean end {@link #next()} reached. */
    public enum End {
        /** The file ends at a record boundary or inside a block's zero trailer. */
        END_OF_FILE,
        /** The rest of the log is zeros: preallocated or never written. */
        ZERO_FILL,
        /** The bytes after the log belong to an earlier log that used this file. */
        STALE_DATA
    }

    private final ReadableFile file;
    private final Path path;
    private final long logNumber;
    private final int logNumberBits;
    private final long fileSize;

    private final byte[] block = new byte[WalFormat.BLOCK_SIZE];
    /** File offset of the block held in {@link #block}, or -1 before the first read. */
    private long blockStart = -1;
    /** Only allocated when a clean end has to be checked against later blocks. */
    private byte[] probe;

    /** The next byte to parse. */
    private long position;
    /** End of the last complete logical record returned. */
    private long validEnd;
    /** Offset of the FIRST fragment of the chain being assembled, or -1 outside a chain. */
    private long chainStart = -1;
    private byte[] chain;
    private int chainLength;

    private End end;
    private IOException failure;

    /**
     * @param file the log, read from offset 0 to its size when this reader is created
     * @param path the log's path, named in exceptions
     * @param logNumber the WAL file number; records carrying other low 32 bits are not this log's
     */
    public WalReader(ReadableFile file, Path path, long logNumber) throws IOException {
        this.file = file;
        this.path = path;
        this.logNumber = logNumber;
        this.logNumberBits = WalFormat.logNumberBits(logNumber);
        this.fileSize = file.size();
    }

    /**
     * The next logical record's payload, or {@code null} at a clean end of the log.
     *
     * @throws TruncatedRecordException if the log ends with a torn record
     * @throws CorruptionException if the log is damaged
     */
    public byte[] next() throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (end != null) {
            return null;
        }
        try {
            return readRecord();
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    /** The end of the last complete record returned: the log is valid up to here. */
    public long offset() {
        return validEnd;
    }

    /** How the log ended cleanly, or {@code null} if {@link #next()} has not returned {@code null}. */
    public End end() {
        return end;
    }

    public long logNumber() {
        return logNumber;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }

    private byte[] readRecord() throws IOException {
        while (true) {
            if (position == fileSize) {
                return endCleanly(End.END_OF_FILE);
            }
            long blockBase = position - position % WalFormat.BLOCK_SIZE;
            int at = (int) (position - blockBase);
            int room = WalFormat.BLOCK_SIZE - at;
            int available = (int) Math.min(room, fileSize - position);
            loadBlock(blockBase);

            if (room < WalFormat.HEADER_SIZE) {
                // The block's trailer: the writer zero-fills it before starting the next block.
                if (!WalFormat.isAllZero(block, at, available)) {
                    return endBeforeForeignBytes(End.STALE_DATA);
                }
                position += available;
                continue;
            }
            if (available < WalFormat.HEADER_SIZE) {
                if (WalFormat.isAllZero(block, at, available)) {
                    return endBeforeForeignBytes(End.ZERO_FILL);
                }
                if (!WalFormat.couldBeHeaderPrefix(block, at, available, logNumberBits,
                        room - WalFormat.HEADER_SIZE)) {
                    return endBeforeForeignBytes(End.STALE_DATA);
                }
                throw truncated("the file ends inside a record header");
            }
            if (WalFormat.isAllZero(block, at, WalFormat.HEADER_SIZE)) {
                return endBeforeForeignBytes(End.ZERO_FILL);
            }

            WalFormat.Header header = WalFormat.decodeHeader(block, at);
            int length = header.length();
            boolean fitsBlock = length <= room - WalFormat.HEADER_SIZE;
            boolean fitsFile = length <= available - WalFormat.HEADER_SIZE;
            if (header.logNumber() != logNumberBits) {
                if (fitsBlock && fitsFile
                        && WalFormat.checksumMatchesWithLogNumber(block, at, header, logNumberBits)) {
                    throw corruption(position, "the record's log number field reads "
                            + Integer.toUnsignedString(header.logNumber()) + " but its checksum matches log "
                            + Integer.toUnsignedString(logNumberBits));
                }
                return endBeforeForeignBytes(End.STALE_DATA);
            }
            // Checked before the file's end: a torn write leaves a header intact, so a bad type or a length
            // no writer could produce is damage even when the file also ends early.
            if (!header.isKnownType()) {
                throw corruption(position, "unknown record type " + header.type());
            }
            if (!fitsBlock) {
                throw corruption(position, "record length " + length + " runs past the end of its block ("
                        + (room - WalFormat.HEADER_SIZE) + " payload bytes left)");
            }
            if (!fitsFile) {
                throw truncated("the file ends inside a record payload");
            }
            if (!WalFormat.checksumMatches(block, at, header)) {
                throw corruption(position, "checksum mismatch");
            }

            long recordStart = position;
            int payloadAt = at + WalFormat.HEADER_SIZE;
            position += WalFormat.HEADER_SIZE + length;
            switch (header.type()) {
                case WalFormat.FULL_TYPE -> {
                    requireNoChain(recordStart, "FULL record");
                    validEnd = position;
                    return Arrays.copyOfRange(block, payloadAt, payloadAt + length);
                }
                case WalFormat.FIRST_TYPE -> {
                    requireNoChain(recordStart, "FIRST fragment");
                    chainStart = recordStart;
                    chainLength = 0;
                    appendToChain(payloadAt, length);
                }
                case WalFormat.MIDDLE_TYPE -> {
                    requireChain(recordStart, "MIDDLE fragment");
                    appendToChain(payloadAt, length);
                }
                case WalFormat.LAST_TYPE -> {
                    requireChain(recordStart, "LAST fragment");
                    appendToChain(payloadAt, length);
                    byte[] record = Arrays.copyOf(chain, chainLength);
                    chain = null;
                    chainStart = -1;
                    validEnd = position;
                    return record;
                }
                default -> throw new AssertionError("type was validated: " + header.type());
            }
        }
    }

    /**
     * The bytes at {@link #position} are not a record of this log. That is a clean end only if the log
     * really stops here: no later block may start with one of its records.
     */
    private byte[] endBeforeForeignBytes(End kind) throws IOException {
        long firstLaterBlock = position - position % WalFormat.BLOCK_SIZE + WalFormat.BLOCK_SIZE;
        for (long at = firstLaterBlock; at + WalFormat.HEADER_SIZE <= fileSize; at += WalFormat.BLOCK_SIZE) {
            if (blockStartsWithRecordOfThisLog(at)) {
                throw corruption(position, (kind == End.ZERO_FILL ? "zeros" : "bytes of no record of this log")
                        + " where a record was expected, but the block at offset " + at
                        + " holds a valid record of log " + Integer.toUnsignedString(logNumberBits));
            }
        }
        return endCleanly(kind);
    }

    /**
     * After {@link #next()} reported damage at {@code damage} (a {@link CorruptionException}'s offset): whether
     * a logical record of this log starts after the damaged one, that is a FULL record or a FIRST fragment
     * with a valid checksum. The damaged block is searched after the damaged record as its header's length
     * places it (when that header is this log's), and every later block from its start on, record by record
     * while they stay valid. A log whose writer appends a record only once the previous one is synced can
     * use the answer to tell damage to a synced record (a record follows it) from a last record whose sync
     * never completed (none does); MIDDLE and LAST fragments found after the damage may be the damaged
     * record's own, so they do not count.
     */
    public boolean recordStartsAfter(long damage) throws IOException {
        byte[] buffer = new byte[WalFormat.BLOCK_SIZE];
        long damagedBlock = damage - damage % WalFormat.BLOCK_SIZE;
        int length = readBlockInto(buffer, damagedBlock);
        int at = (int) (damage - damagedBlock);
        if (at + WalFormat.HEADER_SIZE <= length) {
            WalFormat.Header header = WalFormat.decodeHeader(buffer, at);
            if (header.logNumber() == logNumberBits && header.isKnownType()
                    && header.length() <= WalFormat.BLOCK_SIZE - at - WalFormat.HEADER_SIZE
                    && startsLogicalRecord(buffer, at + WalFormat.HEADER_SIZE + header.length(), length)) {
                return true;
            }
        }
        for (long block = damagedBlock + WalFormat.BLOCK_SIZE; block + WalFormat.HEADER_SIZE <= fileSize;
                block += WalFormat.BLOCK_SIZE) {
            if (startsLogicalRecord(buffer, 0, readBlockInto(buffer, block))) {
                return true;
            }
        }
        return false;
    }

    /** Walks the valid records of this log from {@code at} in a block of {@code length} bytes. */
    private boolean startsLogicalRecord(byte[] buffer, int at, int length) {
        while (at + WalFormat.HEADER_SIZE <= length) {
            WalFormat.Header header = WalFormat.decodeHeader(buffer, at);
            if (header.logNumber() != logNumberBits || !header.isKnownType()
                    || header.length() > length - at - WalFormat.HEADER_SIZE
                    || !WalFormat.checksumMatches(buffer, at, header)) {
                return false;
            }
            if (header.type() == WalFormat.FULL_TYPE || header.type() == WalFormat.FIRST_TYPE) {
                return true;
            }
            at += WalFormat.HEADER_SIZE + header.length();
        }
        return false;
    }

    private int readBlockInto(byte[] buffer, long base) throws IOException {
        int length = (int) Math.min(WalFormat.BLOCK_SIZE, fileSize - base);
        file.readFully(ByteBuffer.wrap(buffer, 0, length), base);
        return length;
    }

    private byte[] endCleanly(End kind) throws TruncatedRecordException {
        if (chainStart >= 0) {
            throw new TruncatedRecordException(path, chainStart,
                    "the log ends inside a fragmented record that has no LAST fragment");
        }
        end = kind;
        return null;
    }

    private boolean blockStartsWithRecordOfThisLog(long at) throws IOException {
        if (probe == null) {
            probe = new byte[WalFormat.BLOCK_SIZE];
        }
        file.readFully(ByteBuffer.wrap(probe, 0, WalFormat.HEADER_SIZE), at);
        WalFormat.Header header = WalFormat.decodeHeader(probe, 0);
        if (header.logNumber() != logNumberBits || !header.isKnownType()
                || header.length() > WalFormat.MAX_FRAGMENT_LENGTH
                || at + WalFormat.HEADER_SIZE + header.length() > fileSize) {
            return false;
        }
        file.readFully(ByteBuffer.wrap(probe, WalFormat.HEADER_SIZE, header.length()), at + WalFormat.HEADER_SIZE);
        return WalFormat.checksumMatches(probe, 0, header);
    }

    private void loadBlock(long base) throws IOException {
        if (blockStart != base) {
            int length = (int) Math.min(WalFormat.BLOCK_SIZE, fileSize - base);
            blockStart = -1; // a failed read must not leave a half-filled block looking valid
            file.readFully(ByteBuffer.wrap(block, 0, length), base);
            blockStart = base;
        }
    }

    private void appendToChain(int from, int length) {
        if (chain == null) {
            chain = new byte[Math.max(2 * WalFormat.BLOCK_SIZE, length)];
        } else if (chainLength + length > chain.length) {
            long grown = Math.max((long) chainLength + length, 2L * chain.length);
            if (grown > Integer.MAX_VALUE - 16) {
                grown = (long) chainLength + length;
            }
            chain = Arrays.copyOf(chain, (int) grown);
        }
        System.arraycopy(block, from, chain, chainLength, length);
        chainLength += length;
    }

    private void requireNoChain(long recordStart, String what) throws CorruptionException {
        if (chainStart >= 0) {
            throw corruption(recordStart, what + " inside the unfinished fragmented record that started at offset "
                    + chainStart);
        }
    }

    private void requireChain(long recordStart, String what) throws CorruptionException {
        if (chainStart < 0) {
            throw corruption(recordStart, what + " without a FIRST fragment before it");
        }
    }

    private TruncatedRecordException truncated(String detail) {
        return new TruncatedRecordException(path, chainStart >= 0 ? chainStart : position, detail);
    }

    private CorruptionException corruption(long offset, String detail) {
        return new CorruptionException(path, offset, detail);
    }
}
