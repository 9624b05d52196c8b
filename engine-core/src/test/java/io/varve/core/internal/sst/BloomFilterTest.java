package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class BloomFilterTest {

    private static long hash(String s) {
        return KeyHash.hash64(bytes(s));
    }

    /** The hash is part of the stored format: a change here makes existing filters lie. */
    @Test
    void keyHashKnownAnswers() {
        assertEquals(0x4410C26DEB8917B8L, hash(""));
        assertEquals(0x6AFD2792CA983B09L, hash("a"));
        assertEquals(0x5C61EEABC1745FACL, hash("abcdefgh"));
        assertEquals(0x3AC62BB0D06EE840L, hash("abcdefghi"));
        assertEquals(0x301968D75F431161L, hash("varve"));
        assertEquals(0xC60C4B61DAC4FEF7L, KeyHash.hash64(new byte[1]));
    }

    @Test
    void keysDifferingOnlyInTrailingZerosHashApart() {
        assertNotEquals(KeyHash.hash64(new byte[0]), KeyHash.hash64(new byte[1]));
        assertNotEquals(KeyHash.hash64(new byte[7]), KeyHash.hash64(new byte[8]));
        assertNotEquals(hash("ab"), KeyHash.hash64(new byte[] {'a', 'b', 0}));
    }

    @Test
    void hashingASliceOfALargerSegmentSeesOnlyTheSlice() {
        MemorySegment whole = segment("xxabcdefghiyy");
        assertEquals(hash("abcdefghi"), KeyHash.hash64(whole.asSlice(2, 9)));
    }

    /** The stored filter layout (bit placement, probe sequence, probe byte) is pinned too. */
    @Test
    void filterLayoutKnownAnswer() {
        long[] hashes = new long[100];
        for (int i = 0; i < 100; i++) {
            hashes[i] = hash("key" + i);
        }
        byte[] filter = BloomFilter.build(hashes, 100, 10);
        assertEquals(126, filter.length, "1000 bits rounded up to bytes, plus the probe byte");
        assertEquals(7, filter[filter.length - 1]);
        CRC32C crc = new CRC32C();
        crc.update(filter);
        assertEquals(0x80B8A542L, crc.getValue());
    }

    @Test
    void probeCountIsRoundedAndClamped() {
        assertEquals(7, BloomFilter.probesFor(10));
        assertEquals(1, BloomFilter.probesFor(1));
        assertEquals(1, BloomFilter.probesFor(0));
        assertEquals(30, BloomFilter.probesFor(64));
        assertEquals(4, BloomFilter.probesFor(6));
    }

    @Test
    void falsePositiveRateAtTenBitsPerKeyIsAboutOnePercent() {
        int n = 10_000;
        long[] hashes = new long[n];
        for (int i = 0; i < n; i++) {
            hashes[i] = hash("user:" + i);
        }
        BloomFilter filter = BloomFilter.fromStored(MemorySegment.ofArray(BloomFilter.build(hashes, n, 10)));
        for (int i = 0; i < n; i++) {
            assertTrue(filter.mayContain(segment("user:" + i)));
        }
        int falsePositives = 0;
        for (int i = 0; i < n; i++) {
            if (filter.mayContain(segment("absent:" + i))) {
                falsePositives++;
            }
        }
        double rate = falsePositives / (double) n;
        assertTrue(rate < 0.02, "false-positive rate " + rate);
    }

    @Test
    void tinyFiltersStillHaveTheMinimumSize() {
        byte[] filter = BloomFilter.build(new long[] {hash("only")}, 1, 10);
        assertEquals(TableFormat.BLOOM_MIN_BITS / 8 + 1, filter.length);
    }

    @Test
    void malformedStoredFiltersAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.fromStored(MemorySegment.ofArray(new byte[1])));
        assertThrows(IllegalArgumentException.class,
                () -> BloomFilter.fromStored(MemorySegment.ofArray(new byte[] {0, 0, 0})), "zero probes");
        assertThrows(IllegalArgumentException.class,
                () -> BloomFilter.fromStored(MemorySegment.ofArray(new byte[] {0, 0, 31})), "too many probes");
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.build(new long[0], 0, 0));
    }

    /** A lookup the filter rules out never loads a data block (visible as no cache traffic at all). */
    @Test
    void tableLookupsOfAbsentKeysSkipDataBlocks() throws Exception {
        MemFileSystem fs = memFs();
        Path path = DIR.resolve("000021.sst");
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            byte[] value = new byte[100];
            java.util.Arrays.fill(value, (byte) i);
            entries.add(new Entry(bytes(String.format("present-%05d", i)), InternalKey.trailer(1, ValueKind.PUT),
                    value));
        }
        write(fs, path, entries, TableOptions.defaults());
        BlockCache cache = new BlockCache(16 << 20, 1);
        TableReader reader = open(fs, path, 1, cache);
        try {
            assertTrue(reader.properties().compressedDataBlockCount() == reader.properties().dataBlockCount());
            int filtered = 0;
            for (int i = 0; i < 2000; i++) {
                MemorySegment absent = segment(String.format("present-%05d-not", i));
                long before = cache.hits() + cache.misses();
                assertEquals(LookupResult.Status.NOT_FOUND, reader.get(absent, 5).status());
                if (!reader.mayContain(absent)) {
                    filtered++;
                    assertEquals(before, cache.hits() + cache.misses(), "no block touched");
                }
            }
            assertTrue(filtered > 1900, "filter rejected " + filtered);
        } finally {
            reader.release();
        }
    }
}
