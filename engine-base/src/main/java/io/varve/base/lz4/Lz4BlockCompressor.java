package io.varve.base.lz4;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Compresses byte ranges into LZ4 blocks (the raw block format that {@link Lz4BlockDecoder} reads; any LZ4
 * block decoder can read them). One instance per writer: not thread-safe.
 *
 * <p>A greedy single-pass match finder: a hash of the 4 bytes at each position points to the last position
 * with that hash; a candidate within 65535 bytes whose 4 bytes really match is extended backwards over
 * pending literals and forwards as far as it goes. Positions where nothing matched are skipped faster and
 * faster (one more byte per step every 64 misses), so incompressible input costs little.
 *
 * <p>Why an instance: the hash table (16 KiB) is kept from block to block rather than allocated and zeroed
 * for each. Entries are stored as {@code generation + position}, and each call starts a generation above
 * every value stored before, so an entry left by an earlier block reads as older than the block and is
 * ignored; the table is cleared only when the generation would overflow.
 *
 * <p>Output follows the format's end-of-block rules: the last {@value Lz4BlockDecoder#LAST_LITERALS} bytes
 * are literals and no match starts within the last {@value #MATCH_FIND_LIMIT} bytes.
 */
public final class Lz4BlockCompressor {

    /** No match starts within this many bytes of the end of the input (the format's rule). */
    static final int MATCH_FIND_LIMIT = 12;
    private static final int MAX_OFFSET = 65535;
    private static final int HASH_BITS = 12;
    private static final int SKIP_TRIGGER = 6;
    private static final int RUN_MASK = 15;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** The longest input one call compresses, so that every position and the output bound fit an int. */
    public static final int MAX_INPUT_LENGTH = 1 << 30;

    private final int[] table = new int[1 << HASH_BITS];
    /** Added to positions stored in the table; entries below it belong to earlier calls. */
    private int generation = 1;

    /** The most bytes compressing {@code length} bytes can produce. */
    public static int maxCompressedLength(int length) {
        if (length < 0 || length > MAX_INPUT_LENGTH) {
            throw new IllegalArgumentException("length out of range: " + length);
        }
        return length + length / 255 + 16;
    }

    /**
     * Compresses {@code source[sourceOffset, sourceOffset + length)} into {@code target} from
     * {@code targetOffset}, which must have room for {@link #maxCompressedLength(int)} bytes.
     *
     * @return the compressed length
     */
    public int compress(byte[] source, int sourceOffset, int length, byte[] target, int targetOffset) {
        int bound = maxCompressedLength(length);
        if (sourceOffset < 0 || sourceOffset > source.length - length) {
            throw new IllegalArgumentException("source range outside the array");
        }
        if (targetOffset < 0 || targetOffset > target.length - bound) {
            throw new IllegalArgumentException("target needs " + bound + " bytes from " + targetOffset
                    + ", has " + (target.length - targetOffset));
        }
        if (generation > Integer.MAX_VALUE - length - 1) {
            Arrays.fill(table, 0);
            generation = 1;
        }
        // Every stored value is at least base: positions are relative to the source array, not to sourceOffset.
        int base = generation - sourceOffset;
        int minimum = generation;
        generation += length + 1;

        int end = sourceOffset + length;
        int out = targetOffset;
        int anchor = sourceOffset;
        if (length >= MATCH_FIND_LIMIT + 1) {
            int matchFindLimit = end - MATCH_FIND_LIMIT;
            int matchLimit = end - Lz4BlockDecoder.LAST_LITERALS;
            int position = sourceOffset;
            table[hash(readInt(source, position))] = position + base;
            position++;
            search:
            while (true) {
                // ---- Find a match at or after position
                int candidate;
                int attempts = 1 << SKIP_TRIGGER;
                int next = position;
                while (true) {
                    position = next;
                    next += attempts++ >>> SKIP_TRIGGER;
                    if (next > matchFindLimit) {
                        break search;
                    }
                    int value = readInt(source, position);
                    int h = hash(value);
                    int stored = table[h];
                    table[h] = position + base;
                    candidate = stored - base;
                    if (stored >= minimum && position - candidate <= MAX_OFFSET
                            && readInt(source, candidate) == value) {
                        break;
                    }
                }
                while (position > anchor && candidate > sourceOffset
                        && source[position - 1] == source[candidate - 1]) {
                    position--;
                    candidate--;
                }
                // ---- Emit sequences while matches follow one another directly
                while (true) {
                    int matchLength = Lz4BlockDecoder.MIN_MATCH + commonLength(source,
                            position + Lz4BlockDecoder.MIN_MATCH, candidate + Lz4BlockDecoder.MIN_MATCH, matchLimit);
                    out = writeSequence(source, anchor, position - anchor, position - candidate, matchLength,
                            target, out);
                    position += matchLength;
                    anchor = position;
                    if (position > matchFindLimit) {
                        break search;
                    }
                    table[hash(readInt(source, position - 2))] = position - 2 + base;
                    int value = readInt(source, position);
                    int h = hash(value);
                    int stored = table[h];
                    table[h] = position + base;
                    candidate = stored - base;
                    if (!(stored >= minimum && position - candidate <= MAX_OFFSET
                            && readInt(source, candidate) == value)) {
                        position++;
                        continue search;
                    }
                }
            }
        }
        return writeLastLiterals(source, anchor, end - anchor, target, out) - targetOffset;
    }

    /** Bytes equal at {@code a} and {@code b}, counting until {@code a} reaches {@code limit}. */
    private static int commonLength(byte[] source, int a, int b, int limit) {
        int start = a;
        while (a <= limit - Long.BYTES) {
            long difference = (long) LONG.get(source, a) ^ (long) LONG.get(source, b);
            if (difference != 0) {
                return a - start + (Long.numberOfTrailingZeros(difference) >>> 3);
            }
            a += Long.BYTES;
            b += Long.BYTES;
        }
        while (a < limit && source[a] == source[b]) {
            a++;
            b++;
        }
        return a - start;
    }

    private static int writeSequence(byte[] source, int literalStart, int literals, int offset, int matchLength,
                                     byte[] target, int out) {
        int tokenAt = out++;
        int match = matchLength - Lz4BlockDecoder.MIN_MATCH;
        int token = (Math.min(literals, RUN_MASK) << 4) | Math.min(match, RUN_MASK);
        if (literals >= RUN_MASK) {
            out = writeLengthExtension(literals - RUN_MASK, target, out);
        }
        System.arraycopy(source, literalStart, target, out, literals);
        out += literals;
        target[out++] = (byte) offset;
        target[out++] = (byte) (offset >>> 8);
        if (match >= RUN_MASK) {
            out = writeLengthExtension(match - RUN_MASK, target, out);
        }
        target[tokenAt] = (byte) token;
        return out;
    }

    private static int writeLastLiterals(byte[] source, int literalStart, int literals, byte[] target, int out) {
        target[out++] = (byte) (Math.min(literals, RUN_MASK) << 4);
        if (literals >= RUN_MASK) {
            out = writeLengthExtension(literals - RUN_MASK, target, out);
        }
        System.arraycopy(source, literalStart, target, out, literals);
        return out + literals;
    }

    private static int writeLengthExtension(int remainder, byte[] target, int out) {
        while (remainder >= 255) {
            target[out++] = (byte) 255;
            remainder -= 255;
        }
        target[out++] = (byte) remainder;
        return out;
    }

    private static int readInt(byte[] source, int position) {
        return (int) INT.get(source, position);
    }

    private static int hash(int value) {
        return (value * -1640531535) >>> (Integer.SIZE - HASH_BITS);
    }
}
