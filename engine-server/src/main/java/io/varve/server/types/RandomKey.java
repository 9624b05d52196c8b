package io.varve.server.types;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;
import io.varve.server.store.Metadata;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * RANDOMKEY over an ordered key space, which has no random access. A database of at most {@link #SMALL} keys is
 * read whole and one key picked uniformly. A larger one costs one seek: to a random point between its first and
 * last key, taking the first live key from there (wrapping to the start). That choice is not uniform (a key after
 * a sparse stretch of the key space comes up more often), but every key can come up and the cost is bounded.
 */
public final class RandomKey {

    static final int SMALL = 1000;

    private RandomKey() {
    }

    /** A live key of the current database, or null when it has none. */
    public static byte[] pick(Keyspace keyspace) {
        return pick(keyspace, null);
    }

    /**
     * A live key of the current database in {@code slots} (a cluster node's own slots; null: any slot), or
     * null when it has none.
     */
    public static byte[] pick(Keyspace keyspace, BitSet slots) {
        long now = keyspace.now();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try (Snapshot snapshot = keyspace.snapshot();
             DbIterator it = keyspace.metadataIterator(ReadOptions.at(snapshot), slots, new byte[0])) {
            List<byte[]> few = new ArrayList<>();
            int examined = 0;
            it.seekToFirst();
            byte[] first = it.valid() ? it.key() : null;
            for (; it.valid() && examined < SMALL; it.next(), examined++) {
                byte[] key = KeyEncoding.userKeyOfMetadata(it.key());
                if (!Metadata.decodeHeader(it.value()).isExpired(now)) {
                    few.add(key);
                }
            }
            if (!it.valid()) {
                return few.isEmpty() ? null : few.get(random.nextInt(few.size()));
            }
            it.seekToLast();
            it.seek(pointBetween(first, it.key(), random));
            for (int pass = 0; pass < 2; pass++) {
                for (; it.valid(); it.next()) {
                    byte[] key = KeyEncoding.userKeyOfMetadata(it.key());
                    if (!Metadata.decodeHeader(it.value()).isExpired(now)) {
                        return key;
                    }
                }
                it.seekToFirst();
            }
            return null;
        }
    }

    /** A key between {@code low} and {@code high}: their common prefix and 8 random bytes in between. */
    static byte[] pointBetween(byte[] low, byte[] high, ThreadLocalRandom random) {
        int common = Arrays.mismatch(low, high);
        if (common < 0) {
            return low;
        }
        long a = eightBytes(low, common);
        long b = eightBytes(high, common);
        long span = b - a;
        long offset = span <= 0 ? 0 : (random.nextLong() & Long.MAX_VALUE) % span;
        long point = (a + offset) << 1;
        byte[] out = Arrays.copyOf(low, common + 8);
        for (int i = 0; i < 8; i++) {
            out[common + i] = (byte) (point >>> (56 - 8 * i));
        }
        return out;
    }

    /** Eight bytes from {@code from} as an unsigned number shifted right by one, so differences never overflow. */
    private static long eightBytes(byte[] key, int from) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (from + i < key.length ? key[from + i] & 0xff : 0);
        }
        return v >>> 1;
    }
}
