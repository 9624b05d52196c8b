package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * Set members as subkeys with empty values ({@code 's' | len | key | version | member}, see
 * {@link KeyEncoding}); the metadata holds the version and the member count, which callers keep right under
 * the key's lock. Members iterate in byte order.
 */
public final class SetStore {

    private static final byte[] EMPTY = new byte[0];

    private final Keyspace keyspace;

    public SetStore(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Metadata for a brand-new, empty set: a fresh version so no stale subkeys can show through. */
    public Metadata create() {
        return Metadata.collection(RedisType.SET, 0, keyspace.newVersion(), 0);
    }

    public boolean contains(ReadOptions options, byte[] key, Metadata meta, byte[] member) {
        return keyspace.db().get(options, KeyEncoding.subkey(key, meta.version(), member)) != null;
    }

    public void add(WriteBatch batch, byte[] key, Metadata meta, byte[] member) {
        batch.put(KeyEncoding.subkey(key, meta.version(), member), EMPTY);
    }

    public void remove(WriteBatch batch, byte[] key, Metadata meta, byte[] member) {
        batch.delete(KeyEncoding.subkey(key, meta.version(), member));
    }

    /** Visits members in byte order after {@code afterMember} (null: from the first) until the visitor says stop. */
    public void forEach(ReadOptions options, byte[] key, Metadata meta, byte[] afterMember, Predicate<byte[]> visitor) {
        byte[] prefix = KeyEncoding.subkeyPrefix(key, meta.version());
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(prefix)
                .withUpperBound(KeyEncoding.prefixEnd(prefix)))) {
            if (afterMember == null) {
                it.seekToFirst();
            } else {
                byte[] start = KeyEncoding.subkey(key, meta.version(), afterMember);
                it.seek(start);
                if (it.valid() && Arrays.equals(it.key(), start)) {
                    it.next();
                }
            }
            for (; it.valid(); it.next()) {
                if (!visitor.test(KeyEncoding.fieldOfSubkey(it.key(), prefix.length))) {
                    return;
                }
            }
        }
    }

    /**
     * {@code count} distinct members chosen uniformly at random, in random order, in one pass over the set
     * with memory for {@code count} members only (reservoir sampling); all of them when the set is smaller.
     */
    public List<byte[]> sample(ReadOptions options, byte[] key, Metadata meta, int count, RandomGenerator random) {
        List<byte[]> reservoir = new ArrayList<>(Math.min(count, (int) Math.min(meta.size(), 1 << 16)));
        long[] seen = {0};
        forEach(options, key, meta, null, member -> {
            long i = seen[0]++;
            if (i < count) {
                reservoir.add(member);
            } else {
                long j = random.nextLong(i + 1);
                if (j < count) {
                    reservoir.set((int) j, member);
                }
            }
            return true;
        });
        Collections.shuffle(reservoir, random);
        return reservoir;
    }

    /**
     * Up to {@code count} distinct members (fewer only when the set has fewer) found by seeking to random
     * points between the set's first and last member: O(count log n) however large the set, where
     * {@link #sample} reads every member. Not uniform: a member that follows a wide gap in the byte order is
     * likelier to be picked. SPOP takes that trade (Redis promises a random member, not a uniform draw) so
     * that popping from a large set does not read it whole; SRANDMEMBER keeps the exact sample.
     */
    public List<byte[]> pickBySeeking(ReadOptions options, byte[] key, Metadata meta, int count,
                                      RandomGenerator random) {
        byte[] prefix = KeyEncoding.subkeyPrefix(key, meta.version());
        TreeSet<byte[]> picked = new TreeSet<>(Arrays::compareUnsigned);
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(prefix)
                .withUpperBound(KeyEncoding.prefixEnd(prefix)))) {
            it.seekToFirst();
            if (!it.valid()) {
                return List.of();
            }
            byte[] first = KeyEncoding.fieldOfSubkey(it.key(), prefix.length);
            it.seekToLast();
            byte[] last = KeyEncoding.fieldOfSubkey(it.key(), prefix.length);
            for (int attempt = 0; picked.size() < count && attempt < 4 * count + 16; attempt++) {
                byte[] point = randomPointBetween(first, last, random);
                byte[] target = Arrays.copyOf(prefix, prefix.length + point.length);
                System.arraycopy(point, 0, target, prefix.length, point.length);
                it.seek(target);
                if (!it.valid()) {
                    it.seekToFirst();
                }
                picked.add(KeyEncoding.fieldOfSubkey(it.key(), prefix.length));
            }
        }
        List<byte[]> result = new ArrayList<>(picked);
        if (result.size() < count) {
            return sample(options, key, meta, count, random); // many repeats: a small set, read it whole
        }
        Collections.shuffle(result, random);
        return result;
    }

    /** Random bytes at or after {@code low} and, in their first differing byte, at most {@code high}. */
    private static byte[] randomPointBetween(byte[] low, byte[] high, RandomGenerator random) {
        int common = 0;
        while (common < low.length && common < high.length && low[common] == high[common]) {
            common++;
        }
        byte[] point = Arrays.copyOf(low, common + 8);
        int from = common < low.length ? Byte.toUnsignedInt(low[common]) : 0;
        int to = common < high.length ? Byte.toUnsignedInt(high[common]) : 255;
        point[common] = (byte) (from + random.nextInt(Math.max(1, to - from + 1)));
        for (int i = common + 1; i < point.length; i++) {
            point[i] = (byte) random.nextInt(256);
        }
        return point;
    }

    /**
     * The members at the given positions of the set's member order (positions ascending, repeats allowed,
     * each below the size), in one pass: {@code result[i]} is the member at {@code positions[i]}.
     */
    public List<byte[]> atPositions(ReadOptions options, byte[] key, Metadata meta, long[] positions) {
        List<byte[]> out = new ArrayList<>(positions.length);
        long[] index = {0};
        forEach(options, key, meta, null, member -> {
            while (out.size() < positions.length && positions[out.size()] == index[0]) {
                out.add(member);
            }
            index[0]++;
            return out.size() < positions.length;
        });
        return out;
    }

    public List<byte[]> members(ReadOptions options, byte[] key, Metadata meta) {
        List<byte[]> out = new ArrayList<>();
        forEach(options, key, meta, null, out::add);
        return out;
    }
}
