package io.varve.base.lz4;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Decodes one LZ4 block (the raw block format, no frame) from a memory segment straight into a byte array,
 * so a table reader decompresses from its file mapping without first copying the compressed bytes out.
 *
 * <h2>The block format</h2>
 * A block is a series of sequences. Each sequence is a token byte (high nibble: literal length, low nibble:
 * match length minus 4), then, if the literal nibble is 15, extension bytes added to it until one is below
 * 255, then the literals, then a 2-byte little-endian offset back into the output, then match length
 * extension bytes in the same way, and the match is copied from {@code offset} bytes back. The last
 * sequence has literals only and ends the input. Encoders leave the last 5 bytes of output as literals and
 * start no match in the last 12.
 *
 * <h2>Safety</h2>
 * Every length is checked before it is used, against what is left of the input and of the output, so a
 * damaged block ends in {@link Lz4FormatException} and nothing is read outside {@code [inputOffset,
 * inputOffset + inputLength)} or written outside {@code [outputOffset, outputOffset + outputLength)}: offset 0,
 * a match starting before the output's start, lengths past either end, a match touching the last 5 bytes
 * and a block that stops short of (or runs past) the stated output length are all rejected. Segment and
 * array accesses are bounds-checked by the JVM as well, a second line of defence; no access is unchecked.
 *
 * <h2>Speed</h2>
 * Literal runs and matches up to 64 bytes (matches from at least 8 bytes back) are copied in 8-byte words,
 * overshooting their end by up to 7 bytes when that stays inside the output (the overshoot is overwritten by
 * the sequences that follow: the same trick as the reference decoder), which saves a bulk-copy call and its
 * fixed cost per sequence. Longer literal runs use {@link MemorySegment#copy}, longer matches
 * {@link System#arraycopy}; a match that overlaps its own output closer than 8 bytes back or beyond 64 bytes
 * (a repeating pattern) is copied in chunks that double, each chunk copying pattern already written. The
 * output is an array rather than a segment because the engine decompresses into heap arrays, and a copy
 * within one array is a plain {@code System.arraycopy} without a segment's liveness and bounds checks.
 * Stateless and thread-safe.
 */
public final class Lz4BlockDecoder {

    /** Encoders keep this many bytes at the end of the output as literals; no match may reach them. */
    static final int LAST_LITERALS = 5;
    static final int MIN_MATCH = 4;

    private static final ValueLayout.OfShort OFFSET = ValueLayout.JAVA_SHORT_UNALIGNED
            .withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Words are copied, never interpreted, but reads and writes must agree on their order. */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle ARRAY_WORD = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    /** Literal runs shorter than this are copied as two words when there is room. */
    private static final int SHORT_COPY = 16;
    /**
     * Literal runs and matches up to this long are copied a word at a time when there is room; longer ones by
     * a bulk copy, whose fixed cost per call then pays off.
     */
    private static final int WORD_COPY_LIMIT = 64;

    private Lz4BlockDecoder() {
    }

    /**
     * Decodes the LZ4 block {@code input[inputOffset, inputOffset + inputLength)} into exactly
     * {@code output[outputOffset, outputOffset + outputLength)}.
     *
     * @throws Lz4FormatException if the input is not an LZ4 block of exactly {@code outputLength} bytes; the
     *     output range may then hold anything, and nothing outside it was written
     * @throws IllegalArgumentException if a range lies outside its segment or array
     */
    public static void decode(MemorySegment input, long inputOffset, long inputLength,
                              byte[] output, int outputOffset, int outputLength) throws Lz4FormatException {
        if (inputOffset < 0 || inputLength < 0 || inputLength > input.byteSize() - inputOffset) {
            throw new IllegalArgumentException("input range [" + inputOffset + ", +" + inputLength
                    + ") outside a segment of " + input.byteSize() + " bytes");
        }
        if (outputOffset < 0 || outputLength < 0 || outputLength > output.length - outputOffset) {
            throw new IllegalArgumentException("output range [" + outputOffset + ", +" + outputLength
                    + ") outside an array of " + output.length + " bytes");
        }
        long in = inputOffset;
        long inEnd = inputOffset + inputLength;
        int out = outputOffset;
        int outEnd = outputOffset + outputLength;
        while (true) {
            if (in >= inEnd) {
                throw new Lz4FormatException("input ends before a token", in - inputOffset);
            }
            int token = input.get(ValueLayout.JAVA_BYTE, in++) & 0xFF;

            // ---- Literals
            int literals = token >>> 4;
            if (literals == 15) {
                int b;
                do {
                    if (in >= inEnd) {
                        throw new Lz4FormatException("input ends inside a literal length", in - inputOffset);
                    }
                    b = input.get(ValueLayout.JAVA_BYTE, in++) & 0xFF;
                    literals += b;
                    // Checked per byte, so the running sum stays small and cannot overflow.
                    if (literals > outEnd - out) {
                        throw new Lz4FormatException("literal run of at least " + literals
                                + " bytes overruns the output's " + (outEnd - out) + " remaining bytes",
                                in - inputOffset);
                    }
                } while (b == 255);
            }
            if (literals < SHORT_COPY && inEnd - in >= SHORT_COPY && outEnd - out >= SHORT_COPY) {
                // The input goes on past this run, so it is not the last, and the next sequence rewrites
                // the bytes written past it.
                ARRAY_WORD.set(output, out, input.get(WORD, in));
                ARRAY_WORD.set(output, out + 8, input.get(WORD, in + 8));
            } else if (literals <= WORD_COPY_LIMIT && inEnd - in >= literals + 7 && outEnd - out >= literals + 7) {
                // Whole words, up to 7 bytes past the run: the input goes on past them (so this run is not the
                // last), and the output has room for them, rewritten by the sequences that follow.
                for (int i = 0; i < literals; i += Long.BYTES) {
                    ARRAY_WORD.set(output, out + i, input.get(WORD, in + i));
                }
            } else if (literals > 0) {
                if (literals > inEnd - in) {
                    throw new Lz4FormatException("literal run of " + literals + " bytes overruns the input's "
                            + (inEnd - in) + " remaining bytes", in - inputOffset);
                }
                if (literals > outEnd - out) {
                    throw new Lz4FormatException("literal run of " + literals + " bytes overruns the output's "
                            + (outEnd - out) + " remaining bytes", in - inputOffset);
                }
                MemorySegment.copy(input, ValueLayout.JAVA_BYTE, in, output, out, literals);
            }
            in += literals;
            out += literals;
            if (in == inEnd) {
                if (out != outEnd) {
                    throw new Lz4FormatException("block decodes to " + (out - outputOffset)
                            + " bytes, expected " + outputLength, in - inputOffset);
                }
                return;
            }

            // ---- Match
            if (inEnd - in < 2) {
                throw new Lz4FormatException("input ends inside a match offset", in - inputOffset);
            }
            int offset = input.get(OFFSET, in) & 0xFFFF;
            if (offset == 0) {
                throw new Lz4FormatException("match offset 0", in - inputOffset);
            }
            if (offset > out - outputOffset) {
                throw new Lz4FormatException("match offset " + offset + " reaches before the output's start ("
                        + (out - outputOffset) + " bytes written)", in - inputOffset);
            }
            in += 2;
            // The last LAST_LITERALS bytes are literals: a match must end before them.
            int matchRoom = outEnd - LAST_LITERALS - out;
            int match = token & 0x0F;
            if (match == 15) {
                int b;
                do {
                    if (in >= inEnd) {
                        throw new Lz4FormatException("input ends inside a match length", in - inputOffset);
                    }
                    b = input.get(ValueLayout.JAVA_BYTE, in++) & 0xFF;
                    match += b;
                    if (match + MIN_MATCH > matchRoom) {
                        break;
                    }
                } while (b == 255);
            }
            match += MIN_MATCH;
            if (match > matchRoom) {
                throw new Lz4FormatException("match of " + match + " bytes overruns the output ("
                        + Math.max(0, matchRoom) + " bytes before its last literals)", in - inputOffset);
            }
            int from = out - offset;
            if (offset >= 8 && match <= WORD_COPY_LIMIT && outEnd - out >= match + 7) {
                // With offset >= 8 each word read ends at or before the start of the word being written, so
                // it holds final bytes: earlier output, or words this loop already copied (a repeating match
                // comes out right). The up to 7 bytes written past the match are rewritten later.
                for (int i = 0; i < match; i += Long.BYTES) {
                    ARRAY_WORD.set(output, out + i, (long) ARRAY_WORD.get(output, from + i));
                }
            } else if (offset >= match) {
                System.arraycopy(output, from, output, out, match);
            } else {
                copyRepeating(output, from, out, match);
            }
            out += match;
        }
    }

    /**
     * Copies {@code length} bytes to {@code to} from {@code from}, where {@code to - from < length}: the
     * output repeats the pattern {@code [from, to)}. Each step copies everything from {@code from} up to
     * the current end, which is a whole number of patterns, so no step overlaps and the copied span doubles.
     */
    private static void copyRepeating(byte[] output, int from, int to, int length) {
        int end = to + length;
        if (to - from == 1) {
            Arrays.fill(output, to, end, output[from]);
            return;
        }
        while (to < end) {
            int chunk = Math.min(to - from, end - to);
            System.arraycopy(output, from, output, to, chunk);
            to += chunk;
        }
    }
}
