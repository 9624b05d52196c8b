package io.varve.core.internal.sst;

import io.varve.base.CorruptionException;
import io.varve.core.internal.rangedel.FragmentedTombstones;
import io.varve.core.internal.rangedel.RangeTombstone;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The range-deletion block decodes to exactly the fragments encoded, and a damaged one (cut short, or with
 * bytes flipped so a length or a range goes wrong) is reported as corruption, never read out of bounds.
 */
class RangeDeletionBlockProperties {

    private static final Path FILE = Path.of("/t.sst");

    @Provide
    Arbitrary<List<RangeTombstone>> fragments() {
        Arbitrary<byte[]> key = Arbitraries.bytes().between((byte) 0, (byte) 6).array(byte[].class).ofMaxSize(3);
        return Combinators.combine(key, key, Arbitraries.longs().between(1, 1L << 40))
                .filter((a, b, s) -> Arrays.compareUnsigned(a, b) != 0)
                .as((a, b, s) -> Arrays.compareUnsigned(a, b) < 0 ? new RangeTombstone(a, b, s) : new RangeTombstone(b, a, s))
                .list().ofMaxSize(12)
                .map(all -> FragmentedTombstones.of(all).fragments());
    }

    @Property(tries = 300)
    void roundTrips(@ForAll("fragments") List<RangeTombstone> fragments) throws CorruptionException {
        byte[] encoded = RangeDeletionBlock.encode(fragments);
        assertEquals(fragments, RangeDeletionBlock.decode(MemorySegment.ofArray(encoded), FILE, 0));
    }

    @Property(tries = 300)
    void aTruncatedBlockIsCorruption(@ForAll("fragments") List<RangeTombstone> fragments) {
        if (fragments.isEmpty()) {
            return;
        }
        byte[] encoded = RangeDeletionBlock.encode(fragments);
        for (int cut = 0; cut < encoded.length; cut++) {
            MemorySegment shorter = MemorySegment.ofArray(Arrays.copyOf(encoded, cut));
            assertThrows(CorruptionException.class, () -> RangeDeletionBlock.decode(shorter, FILE, 0));
        }
    }

    @Property(tries = 300)
    void aFlippedByteIsCorruptionOrStillWellFormed(@ForAll("fragments") List<RangeTombstone> fragments,
                                                   @ForAll int at, @ForAll byte flip) {
        byte[] encoded = RangeDeletionBlock.encode(fragments);
        encoded[Math.floorMod(at, encoded.length)] ^= (byte) (flip | 1);
        try {
            for (RangeTombstone t : RangeDeletionBlock.decode(MemorySegment.ofArray(encoded), FILE, 0)) {
                // Whatever decodes is a valid range: the record's constructor enforces begin < end.
                assertEquals(-1, Integer.signum(Arrays.compareUnsigned(t.begin(), t.end())));
            }
        } catch (CorruptionException expected) {
            // Reported, not read out of bounds.
        }
    }
}
