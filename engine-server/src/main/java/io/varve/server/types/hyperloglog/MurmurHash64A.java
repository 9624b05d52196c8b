package io.varve.server.types.hyperloglog;

/**
 * Austin Appleby's MurmurHash64A as Redis's HyperLogLog uses it: 8-byte blocks read little-endian whatever
 * the machine, and Redis's seed. Register choices must match redis-server's bit for bit, or an HLL written
 * by one would count differently when extended by the other.
 */
final class MurmurHash64A {

    /** The seed redis-server hashes HLL elements with. */
    static final int REDIS_SEED = 0xadc83b19;

    private static final long M = 0xc6a4a7935bd1e995L;
    private static final int R = 47;

    private MurmurHash64A() {
    }

    static long hash(byte[] data, int seed) {
        int len = data.length;
        long h = (seed & 0xFFFFFFFFL) ^ (len * M);
        int blocks = len - (len & 7);
        for (int i = 0; i < blocks; i += 8) {
            long k = littleEndianLong(data, i);
            k *= M;
            k ^= k >>> R;
            k *= M;
            h ^= k;
            h *= M;
        }
        int tail = len & 7;
        if (tail > 0) {
            for (int i = tail - 1; i >= 0; i--) {
                h ^= (data[blocks + i] & 0xFFL) << (8 * i);
            }
            h *= M;
        }
        h ^= h >>> R;
        h *= M;
        h ^= h >>> R;
        return h;
    }

    private static long littleEndianLong(byte[] data, int at) {
        long k = 0;
        for (int i = 7; i >= 0; i--) {
            k = (k << 8) | (data[at + i] & 0xFFL);
        }
        return k;
    }
}
