package io.varve.jmh.data;

import java.util.SplittableRandom;

/**
 * Deterministic 16-byte keys, as in db_bench: key {@code i} is the big-endian {@code i} followed by eight
 * bytes mixed from {@code i}. Keys sort in index order, so writing indexes in ascending order is a sequential
 * fill, and the second half keeps keys from being mostly zero bytes (which would flatter prefix compression).
 */
public final class Keys {

    public static final int KEY_SIZE = 16;

    private Keys() {
    }

    /** A new array holding key {@code index}: engines that keep references to keys need fresh arrays. */
    public static byte[] key(long index) {
        byte[] key = new byte[KEY_SIZE];
        write(index, key);
        return key;
    }

    /** Writes key {@code index} into {@code dest} (at least 16 bytes), for reads that may reuse a buffer. */
    public static void write(long index, byte[] dest) {
        putLong(dest, 0, index);
        putLong(dest, 8, mix(index));
    }

    private static void putLong(byte[] dest, int offset, long v) {
        for (int i = 7; i >= 0; i--) {
            dest[offset + i] = (byte) v;
            v >>>= 8;
        }
    }

    /** SplitMix64's finaliser: a fixed bijection, so the suffix is deterministic per key. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** The indexes {@code 0 .. n-1} in a seeded random order (Fisher-Yates): a fill that writes each key once. */
    public static int[] permutation(int n, long seed) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }
}
