package io.varve.jmh.data;

import java.util.SplittableRandom;

/**
 * A pool of deterministic values that compress to about half their size, like db_bench's default
 * (--compression_ratio=0.5): each value is random bytes for its first half and a repeat of them after.
 * All-zero or all-random values would make LZ4/Snappy look either magical or useless.
 *
 * <p>Values are shared between puts and never modified, so engines that keep references (LevelDB-java)
 * stay correct, and generating them costs nothing inside the measured loop.
 */
public final class Values {

    private static final int POOL = 1024;

    private final byte[][] pool;

    public Values(int valueSize, long seed) {
        pool = new byte[POOL][];
        SplittableRandom random = new SplittableRandom(seed);
        int half = (valueSize + 1) / 2;
        for (int i = 0; i < POOL; i++) {
            byte[] value = new byte[valueSize];
            for (int j = 0; j < half; j++) {
                value[j] = (byte) random.nextInt(256);
            }
            System.arraycopy(value, 0, value, half, valueSize - half);
            pool[i] = value;
        }
    }

    /** The value for the {@code n}th write. */
    public byte[] get(long n) {
        return pool[(int) (n & (POOL - 1))];
    }
}
