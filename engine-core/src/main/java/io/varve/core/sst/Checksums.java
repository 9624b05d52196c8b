package io.varve.core.sst;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * CRC32C (hardware-accelerated in the JDK) with LevelDB-style masking. A stored checksum is masked so that
 * computing the CRC of data that itself contains CRCs does not degenerate; masking is a bijection, so it
 * loses no detection power.
 */
public final class Checksums {

    private Checksums() {
    }

    /** Rotates right by 15 bits and adds {@link TableFormat#CRC_MASK_DELTA}. */
    public static int mask(int crc) {
        return ((crc >>> 15) | (crc << 17)) + TableFormat.CRC_MASK_DELTA;
    }

    public static int unmask(int masked) {
        int rotated = masked - TableFormat.CRC_MASK_DELTA;
        return (rotated >>> 17) | (rotated << 15);
    }

    /** The unmasked CRC32C of {@code length} bytes of {@code data} starting at {@code offset}. */
    public static int crc32c(byte[] data, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        return (int) crc.getValue();
    }

    /** The unmasked CRC32C of {@code length} bytes of {@code segment} starting at {@code offset}. */
    public static int crc32c(MemorySegment segment, long offset, long length) {
        CRC32C crc = new CRC32C();
        crc.update(segment.asSlice(offset, length).asByteBuffer());
        return (int) crc.getValue();
    }
}
