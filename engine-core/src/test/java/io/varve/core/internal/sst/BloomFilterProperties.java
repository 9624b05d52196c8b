package io.varve.core.internal.sst;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class BloomFilterProperties {

    @Property(tries = 300)
    void noFalseNegatives(@ForAll("keys") List<byte[]> keys, @ForAll @IntRange(min = 1, max = 24) int bitsPerKey) {
        long[] hashes = new long[keys.size()];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = KeyHash.hash64(keys.get(i));
        }
        BloomFilter filter = BloomFilter.fromStored(
                MemorySegment.ofArray(BloomFilter.build(hashes, hashes.length, bitsPerKey)));
        assertEquals(BloomFilter.probesFor(bitsPerKey), filter.probes());
        for (byte[] key : keys) {
            assertTrue(filter.mayContain(MemorySegment.ofArray(key)));
        }
    }

    @Provide
    Arbitrary<List<byte[]>> keys() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(40).list().ofMaxSize(500);
    }
}
