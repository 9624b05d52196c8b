package io.varve.base.lz4;

import static io.varve.base.lz4.Lz4CodecProperties.decodeWithGuards;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Damaged LZ4 input ends in {@link Lz4FormatException} or decodes, and either way the decoder writes
 * nothing outside its output range (the guard bytes of {@link Lz4CodecProperties#decodeWithGuards}) and
 * throws nothing else. Hand-built blocks pin down each rule of the format the decoder enforces.
 */
class Lz4DamageProperties {

    private static final LZ4SafeDecompressor REFERENCE_DECODER = LZ4Factory.safeInstance().safeDecompressor();

    @Provide
    Arbitrary<byte[]> inputs() {
        return Lz4Inputs.any();
    }

    @Property(tries = 600)
    void flippedBitsGiveTheCleanExceptionOrTheReferenceResult(@ForAll("inputs") byte[] input,
                                                              @ForAll @IntRange(min = 1, max = 4) int flips,
                                                              @ForAll long seed) {
        byte[] compressed = Lz4CodecProperties.compress(new Lz4BlockCompressor(), input, 0, input.length);
        Random random = new Random(seed);
        for (int i = 0; i < flips; i++) {
            int position = random.nextInt(compressed.length);
            compressed[position] ^= (byte) (1 << random.nextInt(8));
        }
        byte[] ours = decodeOrNull(compressed, input.length);
        byte[] reference = referenceOrNull(compressed, input.length);
        if (ours != null && reference != null) {
            assertArrayEquals(reference, ours, "both decoders accept the damaged block but disagree");
        }
    }

    @Property(tries = 300)
    void truncatedBlocksAreRejected(@ForAll("inputs") byte[] input, @ForAll long seed) {
        byte[] compressed = Lz4CodecProperties.compress(new Lz4BlockCompressor(), input, 0, input.length);
        int cut = new Random(seed).nextInt(compressed.length);
        // A shorter block ends early: either inside a sequence or after one that ends with a match.
        assertThrows(Lz4FormatException.class,
                () -> decodeWithGuards(Arrays.copyOf(compressed, cut), input.length));
    }

    @Property(tries = 300)
    void aWrongStatedLengthIsRejected(@ForAll("inputs") byte[] input, @ForAll @IntRange(min = -300, max = 300)
            int error) {
        int length = input.length + (error == 0 ? 1 : error);
        if (length < 0) {
            return;
        }
        byte[] compressed = Lz4CodecProperties.compress(new Lz4BlockCompressor(), input, 0, input.length);
        assertThrows(Lz4FormatException.class, () -> decodeWithGuards(compressed, length));
    }

    @Property(tries = 600)
    void randomBytesNeverEscapeTheOutput(@ForAll @IntRange(max = 300) int size,
                                         @ForAll @IntRange(max = 2000) int length, @ForAll long seed) {
        byte[] garbage = new byte[size];
        new Random(seed).nextBytes(garbage);
        decodeOrNull(garbage, length);
    }

    // ---- Hand-built blocks: each violates one rule

    @Test
    void emptyInputIsRejected() {
        assertThrows(Lz4FormatException.class, () -> decodeWithGuards(new byte[0], 0));
    }

    @Test
    void theSmallestBlockDecodesToNothing() throws Lz4FormatException {
        assertArrayEquals(new byte[0], decodeWithGuards(new byte[] {0}, 0));
    }

    @Test
    void offsetZeroIsRejected() {
        // 8 literals, then a match at offset 0; 5 literals close the block.
        byte[] block = join(bytes(0x84), ascii("abcdefgh"), bytes(0, 0), bytes(0x50), ascii("vwxyz"));
        Lz4FormatException e = assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 21));
        assertContains(e, "offset 0");
    }

    @Test
    void aMatchBeforeTheOutputStartIsRejected() {
        byte[] block = join(bytes(0x84), ascii("abcdefgh"), bytes(9, 0), bytes(0x50), ascii("vwxyz"));
        Lz4FormatException e = assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 21));
        assertContains(e, "before the output's start");
    }

    @Test
    void aMatchAtTheFullDistanceIsAccepted() throws Lz4FormatException {
        // The same block with offset 8 is valid: the rejection above is about the offset, not the layout.
        byte[] block = join(bytes(0x84), ascii("abcdefgh"), bytes(8, 0), bytes(0x50), ascii("vwxyz"));
        assertArrayEquals(ascii("abcdefghabcdefghvwxyz"), decodeWithGuards(block, 21));
    }

    @Test
    void literalsPastTheInputAreRejected() {
        byte[] block = join(bytes(0x90), ascii("abcd"));
        Lz4FormatException e = assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 9));
        assertContains(e, "overruns the input");
    }

    @Test
    void literalsPastTheOutputAreRejected() {
        byte[] block = join(bytes(0x90), ascii("abcdefghi"));
        Lz4FormatException e = assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 8));
        assertContains(e, "overruns the output");
    }

    @Test
    void aHugeLiteralLengthIsRejectedWithoutOverflow() {
        byte[] extension = new byte[100_000];
        Arrays.fill(extension, (byte) 255);
        byte[] block = join(bytes(0xF0), extension, bytes(0));
        Lz4FormatException e = assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 4096));
        assertContains(e, "overruns the output");
    }

    @Test
    void aMatchPastTheOutputIsRejected() {
        // Offset 1, match length 4 + 15 + 200 into an output of 30 bytes.
        byte[] block = join(bytes(0x1F), ascii("a"), bytes(1, 0), bytes(200), bytes(0x50), ascii("vwxyz"));
        Lz4FormatException e = assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 30));
        assertContains(e, "overruns the output");
    }

    @Test
    void aMatchIntoTheLastFiveBytesIsRejected() {
        // 8 literals and an 8-byte match make 16 bytes, then only 4 literals: the match reaches the last 5.
        byte[] block = join(bytes(0x84), ascii("abcdefgh"), bytes(8, 0), bytes(0x40), ascii("wxyz"));
        assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 20));
    }

    @Test
    void aBlockEndingWithAMatchIsRejected() {
        byte[] block = join(bytes(0x84), ascii("abcdefgh"), bytes(8, 0));
        assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 16));
    }

    @Test
    void aTruncatedOffsetIsRejected() {
        byte[] block = join(bytes(0x84), ascii("abcdefgh"), bytes(8));
        assertContains(assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 21)), "offset");
    }

    @Test
    void aTruncatedMatchLengthIsRejected() {
        byte[] block = join(bytes(0x8F), ascii("abcdefgh"), bytes(8, 0), bytes(255));
        assertContains(assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 1000)),
                "match length");
    }

    @Test
    void aBlockShortOfTheStatedLengthIsRejected() {
        byte[] block = join(bytes(0x50), ascii("abcde"));
        assertContains(assertThrows(Lz4FormatException.class, () -> decodeWithGuards(block, 6)),
                "expected 6");
    }

    @Test
    void overlappingMatchesRepeatTheirPattern() throws Lz4FormatException {
        // "abc" then a match at offset 3 of 4 + 15 + 13 = 32 bytes, then 5 literals.
        byte[] block = join(bytes(0x3F), ascii("abc"), bytes(3, 0), bytes(13), bytes(0x50), ascii("vwxyz"));
        assertArrayEquals(join("abc".repeat(12).substring(0, 35).getBytes(), ascii("vwxyz")),
                decodeWithGuards(block, 40));
    }

    private static byte[] decodeOrNull(byte[] compressed, int length) {
        try {
            return decodeWithGuards(compressed, length);
        } catch (Lz4FormatException e) {
            return null;
        }
    }

    private static byte[] referenceOrNull(byte[] compressed, int length) {
        byte[] out = new byte[length];
        try {
            int produced = REFERENCE_DECODER.decompress(compressed, 0, compressed.length, out, 0);
            return produced == length ? out : null;
        } catch (LZ4Exception e) {
            return null;
        }
    }

    private static void assertContains(Exception e, String text) {
        if (!e.getMessage().contains(text)) {
            throw new AssertionError("expected \"" + text + "\" in: " + e.getMessage());
        }
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] join(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }
}
