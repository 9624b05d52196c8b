package io.varve.raftlog.format;

import io.varve.core.base.CorruptionException;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Turns a stored entries block back into raw records and slices single entries out of it. This is where the
 * entries checksum is verified: recovery never reads payloads, so a damaged payload is reported on the
 * first read of its block, not at open.
 */
public final class EntriesBlock {
    private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.safeInstance().safeDecompressor();

    private EntriesBlock() {
    }

    /**
     * @param stored the stored block exactly ({@code header.storedLength()} bytes)
     * @param blockOffset file offset of the block, for error messages
     */
    public static byte[] decode(BatchFormat.Header header, byte[] stored, Path file, long blockOffset)
            throws CorruptionException {
        CRC32C crc = new CRC32C();
        crc.update(stored, 0, header.storedLength());
        if ((int) crc.getValue() != header.entriesCrc()) {
            throw new CorruptionException(file, blockOffset, "entries block checksum mismatch");
        }
        if (!header.compressed()) {
            return stored;
        }
        byte[] raw = new byte[header.rawLength()];
        try {
            int n = DECOMPRESSOR.decompress(stored, 0, header.storedLength(), raw, 0, raw.length);
            if (n != raw.length) {
                throw new CorruptionException(file, blockOffset, "entries block decompressed to " + n
                        + " bytes, expected " + raw.length);
            }
        } catch (LZ4Exception e) {
            throw new CorruptionException(file, blockOffset, "entries block does not decompress: "
                    + e.getMessage());
        }
        return raw;
    }

    /** The payload of the record starting at {@code start} in a raw block. */
    public static byte[] readRecord(byte[] raw, int start, Path file, long blockOffset)
            throws CorruptionException {
        ByteCursor in = new ByteCursor(raw, start, raw.length, file, blockOffset);
        return in.lengthPrefixed("entry");
    }
}
