package io.varve.core.internal.rangedel;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fragmented lookups agree with checking every tombstone, for every key, entry sequence and reader. */
class FragmentedTombstonesProperties {

    @Provide
    Arbitrary<List<RangeTombstone>> tombstones() {
        Arbitrary<Integer> point = Arbitraries.integers().between(0, 30);
        return Combinators.combine(point, point, Arbitraries.longs().between(1, 20))
                .filter((a, b, s) -> !a.equals(b))
                .as((a, b, s) -> new RangeTombstone(key(Math.min(a, b)), key(Math.max(a, b)), s))
                .list().ofMaxSize(12);
    }

    @Property
    void agreesWithANaiveScan(@ForAll("tombstones") List<RangeTombstone> tombstones) {
        FragmentedTombstones fragmented = FragmentedTombstones.of(tombstones);
        for (int k = 0; k <= 31; k++) {
            byte[] key = key(k);
            for (long reader = 0; reader <= 21; reader++) {
                long newest = 0;
                for (RangeTombstone t : tombstones) {
                    if (t.sequence() <= reader && Arrays.compareUnsigned(t.begin(), key) <= 0
                            && Arrays.compareUnsigned(key, t.end()) < 0) {
                        newest = Math.max(newest, t.sequence());
                    }
                }
                assertEquals(newest, fragmented.coveringSequence(key, reader), "key " + k + " reader " + reader);
                for (long entry = 0; entry <= 21; entry++) {
                    final long e = entry;
                    final long r = reader;
                    boolean naive = tombstones.stream().anyMatch(t -> t.hides(key, e, r));
                    assertEquals(naive, fragmented.hides(key, entry, reader));
                }
            }
        }
        List<RangeTombstone> fragments = fragmented.fragments();
        for (int i = 1; i < fragments.size(); i++) {
            RangeTombstone previous = fragments.get(i - 1);
            RangeTombstone current = fragments.get(i);
            boolean sameFragment = Arrays.equals(previous.begin(), current.begin());
            assertTrue(sameFragment ? previous.sequence() > current.sequence()
                    : Arrays.compareUnsigned(previous.end(), current.begin()) <= 0, "fragments sorted, disjoint");
        }
        assertEquals(FragmentedTombstones.of(fragments).fragments(), fragments, "fragmenting fragments changes nothing");
    }

    private static byte[] key(int k) {
        return new byte[] {(byte) (k * 7)};
    }
}
