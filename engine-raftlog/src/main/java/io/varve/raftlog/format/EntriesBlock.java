package io.varve.raftlog.format;

import io.varve.base.CorruptionException;
import io.varve.base.lz4.Lz4BlockDecoder;
import io.varve.base.lz4.Lz4FormatException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A batch's entries as readers use them: the raw (verified, decompressed) entries block and every entry's
 * offset in it, from the footer. This is where the entries checksum is verified: recovery never reads
 * payloads, so a damaged payload is reported on the first read of its block, not at open.
 *
 * <p>Immutable once built, so readers may share it.
 */
public final class EntriesBlock {

    /** Holds the raw block from {@code base} on (for a block read uncompressed, the buffer it was read into). */
    private final byte[] raw;
    private final int base;
    private final int[] offsets;
    private final Path file;
    private final long batchOffset;

    private EntriesBlock(byte[] raw, int base, int[] offsets, Path file, long batchOffset) {
        this.raw = raw;
        this.base = base;
        this.offsets = offsets;
        this.file = file;
        this.batchOffset = batchOffset;
    }

    /**
     * Verifies and decompresses the entries block of a batch whose frame was decoded with offsets kept. An
     * uncompressed block is used in place: {@code b} must not be modified afterwards.
     *
     * @param b holds the whole batch from {@code off}
     * @param batchOffset file offset of the batch, for error messages
     */
    public static EntriesBlock decode(BatchFrame frame, byte[] b, int off, Path file, long batchOffset)
            throws CorruptionException {
        int stored = frame.storedLength();
        int blockAt = off + frame.blockStart();
        long blockOffset = batchOffset + frame.blockStart();
        if (frame.footer().offsets() == null) {
            throw new IllegalArgumentException("the frame was decoded without entry offsets");
        }
        if (stored > b.length - blockAt) {
            throw new CorruptionException(file, blockOffset, "entries block cut short");
        }
        if (frame.header().hasEntries()) {
            CRC32C crc = new CRC32C();
            crc.update(b, blockAt, stored);
            if ((int) crc.getValue() != frame.header().entriesCrc()) {
                throw new CorruptionException(file, blockOffset, "entries block checksum mismatch");
            }
        }
        int rawLength = (int) frame.footer().rawLength();
        if (!frame.header().compressed()) {
            return new EntriesBlock(b, blockAt, frame.footer().offsets(), file, batchOffset);
        }
        byte[] raw = new byte[rawLength];
        try {
            Lz4BlockDecoder.decode(MemorySegment.ofArray(b), blockAt, stored, raw, 0, rawLength);
        } catch (Lz4FormatException e) {
            throw new CorruptionException(file, blockOffset + e.position(),
                    "entries block does not decompress to its " + rawLength + " bytes: " + e.getMessage());
        }
        return new EntriesBlock(raw, 0, frame.footer().offsets(), file, batchOffset);
    }

    /** How many entries the batch holds. */
    public int entryCount() {
        return offsets.length - 1;
    }

    /** The payload of entry number {@code ordinal} of the batch. */
    public byte[] entry(int ordinal) throws CorruptionException {
        if (ordinal < 0 || ordinal >= entryCount()) {
            throw new CorruptionException(file, batchOffset, "the batch has " + entryCount()
                    + " entries, the index asked for number " + ordinal);
        }
        return Arrays.copyOfRange(raw, base + offsets[ordinal], base + offsets[ordinal + 1]);
    }
}
