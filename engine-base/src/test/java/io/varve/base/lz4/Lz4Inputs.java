package io.varve.base.lz4;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Inputs for the LZ4 codec properties: random bytes (incompressible), runs of one byte, a random chunk
 * repeated with small edits (matches at many offsets, overlapping and not), words of text, and sorted keys
 * with shared prefixes and values (what a table's data block holds). Sizes reach past 64 KiB so matches
 * hit the format's offset limit.
 */
final class Lz4Inputs {

    private static final String[] WORDS = {"the", "block", "table", "varve", "compaction", "level", "key",
        "value", " ", "\n", "sequence", "of", "and", "lz4", "0", "1", "2", "memtable", "a", "zz"};

    private Lz4Inputs() {
    }

    static Arbitrary<byte[]> any() {
        Arbitrary<Integer> sizes = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, 64)),
                Tuple.of(10, Arbitraries.integers().between(0, 5000)),
                Tuple.of(1, Arbitraries.integers().between(60_000, 140_000)));
        Arbitrary<Integer> kinds = Arbitraries.integers().between(0, 4);
        Arbitrary<Long> seeds = Arbitraries.longs();
        return Combinators.combine(kinds, sizes, seeds).as(Lz4Inputs::generate);
    }

    static byte[] generate(int kind, int size, long seed) {
        Random random = new Random(seed);
        byte[] out = new byte[size];
        switch (kind) {
            case 0 -> random.nextBytes(out);
            case 1 -> runs(out, random);
            case 2 -> repeats(out, random);
            case 3 -> text(out, random);
            default -> keysAndValues(out, random);
        }
        return out;
    }

    private static void runs(byte[] out, Random random) {
        int i = 0;
        while (i < out.length) {
            int length = Math.min(out.length - i, 1 + random.nextInt(random.nextBoolean() ? 8 : 600));
            byte b = (byte) random.nextInt(4);
            for (int j = 0; j < length; j++) {
                out[i + j] = b;
            }
            i += length;
        }
    }

    private static void repeats(byte[] out, Random random) {
        byte[] chunk = new byte[1 + random.nextInt(random.nextBoolean() ? 7 : 300)];
        random.nextBytes(chunk);
        for (int i = 0; i < out.length; i++) {
            out[i] = random.nextInt(50) == 0 ? (byte) random.nextInt() : chunk[i % chunk.length];
        }
    }

    private static void text(byte[] out, Random random) {
        int i = 0;
        while (i < out.length) {
            byte[] word = WORDS[random.nextInt(WORDS.length)].getBytes(StandardCharsets.US_ASCII);
            int length = Math.min(word.length, out.length - i);
            System.arraycopy(word, 0, out, i, length);
            i += length;
        }
    }

    private static void keysAndValues(byte[] out, Random random) {
        int i = 0;
        long key = random.nextInt(1000);
        while (i < out.length) {
            key += 1 + random.nextInt(3);
            byte[] entry = String.format("user-key-%012d:value-%d-%s", key, random.nextInt(10),
                    "x".repeat(random.nextInt(40))).getBytes(StandardCharsets.US_ASCII);
            int length = Math.min(entry.length, out.length - i);
            System.arraycopy(entry, 0, out, i, length);
            i += length;
        }
    }
}
