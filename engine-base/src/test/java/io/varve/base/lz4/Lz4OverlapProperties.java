package io.varve.base.lz4;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Random;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Matches that overlap their own output (offset below the length: the copy repeats the last {@code offset}
 * bytes), built by hand so every offset from 1 up and every length class is hit, including the boundaries of
 * the decoder's copy strategies (offsets around 8 and 16, lengths around 16 and the 15 + 255 extension
 * steps). Each block is checked three ways: a byte-at-a-time model, lz4-java's safe decoder (which proves
 * the hand-built block is valid LZ4), and {@link Lz4BlockDecoder}.
 */
class Lz4OverlapProperties {

    private static final LZ4SafeDecompressor REFERENCE_DECODER = LZ4Factory.safeInstance().safeDecompressor();

    /** One sequence: literals, then a match of {@code length} bytes from {@code offset} back. */
    record Sequence(int literals, int offset, int length) {
    }

    @Provide
    Arbitrary<List<Sequence>> sequences() {
        Arbitrary<Integer> literals = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(0, 20)),
                Tuple.of(1, Arbitraries.integers().between(14, 300)));
        Arbitrary<Integer> offsets = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(1, 18)),
                Tuple.of(1, Arbitraries.integers().between(1, 400)));
        Arbitrary<Integer> lengths = Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.integers().between(4, 40)),
                Tuple.of(2, Arbitraries.integers().between(15, 600)));
        return Combinators.combine(literals, offsets, lengths).as(Sequence::new).list().ofMinSize(1).ofMaxSize(8);
    }

    @Property(tries = 1000)
    void overlappingMatchesDecodeLikeTheByteModelAndTheReference(
            @ForAll("sequences") List<Sequence> sequences,
            @ForAll @IntRange(min = 12, max = 30) int lastLiterals,
            @ForAll long seed) throws Lz4FormatException {
        Random random = new Random(seed);
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        byte[] model = new byte[0];
        for (Sequence s : sequences) {
            byte[] literals = new byte[s.literals()];
            random.nextBytes(literals);
            model = append(model, literals);
            // A match may reach back only over bytes already produced; the first sequence needs a literal.
            int written = model.length;
            if (written == 0) {
                literals = new byte[] {(byte) random.nextInt()};
                model = literals;
                written = 1;
            }
            int offset = Math.min(s.offset(), written);
            writeSequence(block, literals, offset, s.length());
            byte[] grown = new byte[model.length + s.length()];
            System.arraycopy(model, 0, grown, 0, model.length);
            for (int i = model.length; i < grown.length; i++) {
                grown[i] = grown[i - offset];
            }
            model = grown;
        }
        // The format ends in literals only; no match may start in the last 12 bytes.
        byte[] last = new byte[lastLiterals];
        random.nextBytes(last);
        writeLastLiterals(block, last);
        model = append(model, last);
        byte[] compressed = block.toByteArray();

        byte[] byReference = new byte[model.length];
        assertEquals(model.length,
                REFERENCE_DECODER.decompress(compressed, 0, compressed.length, byReference, 0, model.length));
        assertArrayEquals(model, byReference, "the reference decodes the hand-built block to the model");
        assertArrayEquals(model, Lz4CodecProperties.decodeWithGuards(compressed, model.length));
    }

    private static void writeSequence(ByteArrayOutputStream out, byte[] literals, int offset, int length) {
        int matchCode = length - Lz4BlockDecoder.MIN_MATCH;
        out.write(Math.min(literals.length, 15) << 4 | Math.min(matchCode, 15));
        writeExtension(out, literals.length);
        out.writeBytes(literals);
        out.write(offset & 0xFF);
        out.write(offset >>> 8);
        writeExtension(out, matchCode);
    }

    private static void writeLastLiterals(ByteArrayOutputStream out, byte[] literals) {
        out.write(Math.min(literals.length, 15) << 4);
        writeExtension(out, literals.length);
        out.writeBytes(literals);
    }

    /** A length of 15 or more continues in bytes of 255 and a final byte below 255. */
    private static void writeExtension(ByteArrayOutputStream out, int length) {
        if (length < 15) {
            return;
        }
        int rest = length - 15;
        while (rest >= 255) {
            out.write(255);
            rest -= 255;
        }
        out.write(rest);
    }

    private static byte[] append(byte[] a, byte[] b) {
        byte[] joined = new byte[a.length + b.length];
        System.arraycopy(a, 0, joined, 0, a.length);
        System.arraycopy(b, 0, joined, a.length, b.length);
        return joined;
    }
}
