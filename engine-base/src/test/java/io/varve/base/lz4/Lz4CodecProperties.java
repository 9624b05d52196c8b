package io.varve.base.lz4;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The engine's LZ4 codec against lz4-java (the reference, pure-Java safe instance): each decodes what the
 * other encodes, byte for byte. Decoding runs from a native segment at an offset, as from a table mapping,
 * into the middle of a larger array whose other bytes are checked to be untouched.
 */
class Lz4CodecProperties {

    private static final LZ4Factory LZ4 = LZ4Factory.safeInstance();
    private static final LZ4Compressor FAST = LZ4.fastCompressor();
    private static final LZ4Compressor HIGH = LZ4.highCompressor();
    private static final LZ4SafeDecompressor REFERENCE_DECODER = LZ4.safeDecompressor();
    /** Bytes on each side of the decoder's output range, which it must leave alone. */
    static final int GUARD = 40;
    static final byte GUARD_BYTE = (byte) 0xA5;

    @Provide
    Arbitrary<byte[]> inputs() {
        return Lz4Inputs.any();
    }

    @Provide
    Arbitrary<List<byte[]>> blockSequences() {
        return Lz4Inputs.any().list().ofMaxSize(12);
    }

    @Property(tries = 400)
    void decodesLz4JavaFastOutput(@ForAll("inputs") byte[] input) throws Lz4FormatException {
        assertArrayEquals(input, decodeWithGuards(FAST.compress(input), input.length));
    }

    @Property(tries = 150)
    void decodesLz4JavaHighCompressionOutput(@ForAll("inputs") byte[] input) throws Lz4FormatException {
        // The high-compression encoder finds longer and more distant matches than the fast one.
        assertArrayEquals(input, decodeWithGuards(HIGH.compress(input), input.length));
    }

    @Property(tries = 400)
    void compressorOutputDecodesToTheInputInBothDecoders(@ForAll("inputs") byte[] input,
                                                          @ForAll @IntRange(max = 9) int sourceOffset)
            throws Lz4FormatException {
        byte[] source = new byte[sourceOffset + input.length];
        System.arraycopy(input, 0, source, sourceOffset, input.length);
        byte[] compressed = compress(new Lz4BlockCompressor(), source, sourceOffset, input.length);

        byte[] byReference = new byte[input.length];
        assertEquals(input.length, REFERENCE_DECODER.decompress(compressed, 0, compressed.length, byReference, 0));
        assertArrayEquals(input, byReference);
        assertArrayEquals(input, decodeWithGuards(compressed, input.length));
        assertTrue(compressed.length <= Lz4BlockCompressor.maxCompressedLength(input.length));
    }

    /** One compressor for many blocks, as a table writer uses it: its kept hash table must not leak matches. */
    @Property(tries = 100)
    void aReusedCompressorEncodesEveryBlockOnItsOwn(@ForAll("blockSequences") List<byte[]> blocks)
            throws Lz4FormatException {
        Lz4BlockCompressor compressor = new Lz4BlockCompressor();
        for (byte[] block : blocks) {
            byte[] compressed = compress(compressor, block, 0, block.length);
            assertArrayEquals(block, REFERENCE_DECODER.decompress(compressed, block.length));
            assertArrayEquals(block, decodeWithGuards(compressed, block.length));
        }
    }

    @Property(tries = 200)
    void compressesRepetitiveInputAsWellAsTheReference(@ForAll @IntRange(min = 1, max = 4) int kind,
                                                        @ForAll @IntRange(min = 256, max = 8192) int size,
                                                        @ForAll long seed) {
        // Not a bit-for-bit match with lz4-java (match choices may differ), but in the same league: a
        // compressor that found no matches would fail this.
        byte[] input = Lz4Inputs.generate(kind, size, seed);
        int ours = compress(new Lz4BlockCompressor(), input, 0, input.length).length;
        int reference = FAST.compress(input).length;
        assertTrue(ours <= reference + reference / 4 + 16, "ours " + ours + " vs lz4-java " + reference);
    }

    static byte[] compress(Lz4BlockCompressor compressor, byte[] source, int offset, int length) {
        byte[] target = new byte[Lz4BlockCompressor.maxCompressedLength(length) + 3];
        int written = compressor.compress(source, offset, length, target, 3);
        return Arrays.copyOfRange(target, 3, 3 + written);
    }

    /**
     * Decodes {@code compressed} from a native segment (at offset 7, like a block inside a mapping) into
     * {@code length} bytes in the middle of a guarded array; fails if a guard byte changed.
     */
    static byte[] decodeWithGuards(byte[] compressed, int length) throws Lz4FormatException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment input = arena.allocate(compressed.length + 14L);
            MemorySegment.copy(compressed, 0, input, ValueLayout.JAVA_BYTE, 7, compressed.length);
            byte[] output = new byte[GUARD + length + GUARD];
            Arrays.fill(output, GUARD_BYTE);
            try {
                Lz4BlockDecoder.decode(input, 7, compressed.length, output, GUARD, length);
            } finally {
                assertGuardsIntact(output);
            }
            return Arrays.copyOfRange(output, GUARD, GUARD + length);
        }
    }

    static void assertGuardsIntact(byte[] output) {
        for (int i = 0; i < GUARD; i++) {
            assertEquals(GUARD_BYTE, output[i], "byte written before the output range");
            assertEquals(GUARD_BYTE, output[output.length - 1 - i], "byte written past the output range");
        }
    }
}
