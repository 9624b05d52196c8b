package io.varve.base;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * CRC32C (hardware-accelerated in the JDK) with LevelDB-style masking. A stored checksum is masked so that
 * computing the CRC of data that itself contains CRCs does not degenerate; masking is a bijection, so it
 * loses no detection power.
 */
public final class Checksums {

    /** Added after rotating the CRC right by {@link #MASK_ROTATION} bits (LevelDB's constant). */
    public static final int MASK_DELTA = 0xa282ead8;
    /** How far the CRC is rotated right before {@link #MASK_DELTA} is added. */
    public static final int MASK_ROTATION = 15;

    private Checksums() {
    }

    /** Rotates right by {@link #MASK_ROTATION} bits and adds {@link #MASK_DELTA}. */
    public static int mask(int crc) {
        return Integer.rotateRight(crc, MASK_ROTATION) + MASK_DELTA;
    }

    public static int unmask(int masked) {
        return Integer.rotateLeft(masked - MASK_DELTA, MASK_ROTATION);
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
