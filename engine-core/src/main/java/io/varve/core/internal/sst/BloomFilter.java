package io.varve.core.internal.sst;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A whole-table bloom filter over user keys, so a point lookup at any snapshot can skip a table that cannot
 * hold the key.
 *
 * <p>Stored form: {@code | bit array (n bytes) | probe count k (1 byte) |}. Bit {@code b} is bit
 * {@code b & 7} of byte {@code b >>> 3}. A key with hash {@code h} ({@link KeyHash#hash64}) sets k bits by
 * double hashing: position {@code x_i = h + i * d} (mod 2^64) with {@code d = rotateRight(h, 21) | 1},
 * reduced to the bit count m with a multiply-high ({@code floor(x_i * m / 2^64)}) instead of a division.
 * With k = round(bitsPerKey * ln 2) the false-positive rate at 10 bits per key is about 1%.
 */
public final class BloomFilter {

    private final MemorySegment bits;
    private final long bitCount;
    private final int probes;

    private BloomFilter(MemorySegment bits, int probes) {
        this.bits = bits;
        this.bitCount = bits.byteSize() * 8;
        this.probes = probes;
    }

    /** The probe count for a bits-per-key budget: round(bitsPerKey * ln 2), clamped to [1, 30]. */
    public static int probesFor(int bitsPerKey) {
        int k = (int) Math.round(bitsPerKey * Math.log(2));
        return Math.clamp(k, TableFormat.BLOOM_MIN_PROBES, TableFormat.BLOOM_MAX_PROBES);
    }

    /**
     * Builds the stored form of a filter holding the first {@code count} hashes of {@code hashes}.
     *
     * @param bitsPerKey at least 1
     */
    public static byte[] build(long[] hashes, int count, int bitsPerKey) {
        if (bitsPerKey < 1) {
            throw new IllegalArgumentException("bits per key must be >= 1: " + bitsPerKey);
        }
        long wantedBits = Math.max(TableFormat.BLOOM_MIN_BITS, (long) count * bitsPerKey);
        int byteCount = (int) Math.min(TableFormat.BLOOM_MAX_BYTES, (wantedBits + 7) / 8);
        int probes = probesFor(bitsPerKey);
        byte[] filter = new byte[byteCount + 1];
        long bitCount = byteCount * 8L;
        for (int n = 0; n < count; n++) {
            long h = hashes[n];
            long delta = Long.rotateRight(h, 21) | 1;
            for (int i = 0; i < probes; i++) {
                long bit = Math.unsignedMultiplyHigh(h, bitCount);
                filter[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
                h += delta;
            }
        }
        filter[byteCount] = (byte) probes;
        return filter;
    }

    /**
     * Wraps a stored filter (no copy).
     *
     * @throws IllegalArgumentException if the bytes cannot be a filter; the table reader reports that as
     *     corruption
     */
    public static BloomFilter fromStored(MemorySegment stored) {
        long size = stored.byteSize();
        if (size < 2 || size - 1 > TableFormat.BLOOM_MAX_BYTES) {
            throw new IllegalArgumentException("filter of impossible size " + size);
        }
        int probes = stored.get(ValueLayout.JAVA_BYTE, size - 1);
        if (probes < TableFormat.BLOOM_MIN_PROBES || probes > TableFormat.BLOOM_MAX_PROBES) {
            throw new IllegalArgumentException("filter probe count " + probes + " out of range");
        }
        return new BloomFilter(stored.asSlice(0, size - 1), probes);
    }

    /** False only if no key with this user key was added. */
    public boolean mayContain(MemorySegment userKey) {
        return mayContainHash(KeyHash.hash64(userKey));
    }

    public boolean mayContainHash(long hash) {
        long h = hash;
        long delta = Long.rotateRight(h, 21) | 1;
        for (int i = 0; i < probes; i++) {
            long bit = Math.unsignedMultiplyHigh(h, bitCount);
            int b = bits.get(ValueLayout.JAVA_BYTE, bit >>> 3);
            if ((b & (1 << (bit & 7))) == 0) {
                return false;
            }
            h += delta;
        }
        return true;
    }

    public int probes() {
        return probes;
    }

    public long bitCount() {
        return bitCount;
    }
}
