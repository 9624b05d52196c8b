package io.varve.stress;

import java.util.Arrays;
import java.util.Random;

/**
 * One damage to one file's bytes, the kinds a disk, a file system or an operator produce: a flipped bit, a
 * run of overwritten bytes, a truncation, an extension (zeros or junk), a zeroed 4 KiB page.
 *
 * @param offset where the damage starts (for a truncation: the new length)
 * @param length how many bytes it covers (unused for bit flips and truncations)
 * @param detail the bit of a flip, or the seed of the junk bytes
 */
public record Mutation(Kind kind, int offset, int length, long detail) {

    public enum Kind { BIT_FLIP, BYTE_RUN, TRUNCATE, EXTEND_ZEROS, EXTEND_JUNK, ZERO_PAGE }

    private static final int PAGE = 4096;

    /** A random mutation of a file of {@code size} bytes (an empty file can only be extended). */
    public static Mutation random(Random random, int size) {
        Kind kind = size == 0 ? (random.nextBoolean() ? Kind.EXTEND_ZEROS : Kind.EXTEND_JUNK)
                : Kind.values()[random.nextInt(Kind.values().length)];
        return switch (kind) {
            case BIT_FLIP -> new Mutation(kind, random.nextInt(size), 1, random.nextInt(8));
            case BYTE_RUN -> {
                int at = random.nextInt(size);
                yield new Mutation(kind, at, 1 + random.nextInt(Math.min(64, size - at)), random.nextLong());
            }
            case TRUNCATE -> new Mutation(kind, random.nextInt(size), 0, 0);
            case EXTEND_ZEROS, EXTEND_JUNK -> new Mutation(kind, size, 1 + random.nextInt(200), random.nextLong());
            case ZERO_PAGE -> {
                int page = random.nextInt((size + PAGE - 1) / PAGE) * PAGE;
                yield new Mutation(kind, page, Math.min(PAGE, size - page), 0);
            }
        };
    }

    /** The damaged copy of {@code bytes}. */
    public byte[] apply(byte[] bytes) {
        byte[] out;
        switch (kind) {
            case BIT_FLIP -> {
                out = bytes.clone();
                out[offset] ^= (byte) (1 << detail);
            }
            case BYTE_RUN -> {
                out = bytes.clone();
                byte[] junk = new byte[length];
                new Random(detail).nextBytes(junk);
                // A run that happens to equal the bytes it covers would damage nothing: change one for sure.
                if (Arrays.equals(junk, 0, length, bytes, offset, offset + length)) {
                    junk[0] ^= 1;
                }
                System.arraycopy(junk, 0, out, offset, length);
            }
            case TRUNCATE -> out = Arrays.copyOf(bytes, offset);
            case EXTEND_ZEROS -> out = Arrays.copyOf(bytes, bytes.length + length);
            case EXTEND_JUNK -> {
                out = Arrays.copyOf(bytes, bytes.length + length);
                byte[] junk = new byte[length];
                new Random(detail).nextBytes(junk);
                System.arraycopy(junk, 0, out, bytes.length, length);
            }
            case ZERO_PAGE -> {
                out = bytes.clone();
                Arrays.fill(out, offset, offset + length, (byte) 0);
            }
            default -> throw new AssertionError(kind);
        }
        return out;
    }

    /** Whether the damaged bytes differ from the original (a zeroed page of zeros does not). */
    public boolean changes(byte[] bytes) {
        return !Arrays.equals(bytes, apply(bytes));
    }

    @Override
    public String toString() {
        return switch (kind) {
            case BIT_FLIP -> "flip bit " + detail + " at " + offset;
            case BYTE_RUN -> length + " junk bytes at " + offset;
            case TRUNCATE -> "truncate to " + offset;
            case EXTEND_ZEROS -> "extend by " + length + " zeros";
            case EXTEND_JUNK -> "extend by " + length + " junk bytes";
            case ZERO_PAGE -> "zero " + length + " bytes at " + offset;
        };
    }
}
