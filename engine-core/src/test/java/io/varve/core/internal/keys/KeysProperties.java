package io.varve.core.internal.keys;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

class KeysProperties {

    /** The word-at-a-time comparison of an array with a segment orders keys exactly as unsigned bytes do. */
    @Property(tries = 2000)
    void arrayAgainstSegmentOrdersLikeUnsignedBytes(@ForAll("keys") byte[] a, @ForAll("keys") byte[] b) {
        int expected = Integer.signum(Arrays.compareUnsigned(a, b));
        assertEquals(expected, Integer.signum(Keys.compare(a, MemorySegment.ofArray(b))));
        assertEquals(expected, Integer.signum(Keys.compare(MemorySegment.ofArray(a), MemorySegment.ofArray(b))));
        assertEquals(0, Keys.compare(a, MemorySegment.ofArray(a.clone())));
    }

    /** The in-place range comparison, at arbitrary offsets of larger segments, agrees with unsigned bytes too. */
    @Property(tries = 2000)
    void rangesAtOffsetsOrderLikeUnsignedBytes(@ForAll("keys") byte[] a, @ForAll("keys") byte[] b,
                                               @ForAll @net.jqwik.api.constraints.IntRange(max = 9) int aPad,
                                               @ForAll @net.jqwik.api.constraints.IntRange(max = 9) int bPad) {
        byte[] paddedA = new byte[aPad + a.length + 3];
        byte[] paddedB = new byte[bPad + b.length + 3];
        Arrays.fill(paddedA, (byte) 0x5a);
        Arrays.fill(paddedB, (byte) 0xa5);
        System.arraycopy(a, 0, paddedA, aPad, a.length);
        System.arraycopy(b, 0, paddedB, bPad, b.length);
        int expected = Integer.signum(Arrays.compareUnsigned(a, b));
        assertEquals(expected, Integer.signum(Keys.compare(MemorySegment.ofArray(paddedA), aPad, a.length,
                MemorySegment.ofArray(paddedB), bPad, b.length)));
    }

    /** Pairs that share long prefixes, so mismatches fall inside words, at word edges and in the tail. */
    @Provide
    Arbitrary<byte[]> keys() {
        Arbitrary<byte[]> prefix = Arbitraries.of(new byte[0], "key:0000".getBytes(), "key:00001234".getBytes(),
                new byte[] {(byte) 0xff, 0, (byte) 0x80, 1, 2, 3, 4, 5, 6});
        Arbitrary<byte[]> suffix = Arbitraries.bytes().array(byte[].class).ofMaxSize(20);
        return prefix.flatMap(p -> suffix.map(s -> {
            byte[] key = Arrays.copyOf(p, p.length + s.length);
            System.arraycopy(s, 0, key, p.length, s.length);
            return key;
        }));
    }
}
