package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * Random members of a set for SPOP and SRANDMEMBER. Subkeys have no rank to draw a uniform position by,
 * so a single pick seeks to a random point of the member order and takes the first live member there;
 * the set's {@link DeadRuns} let it seek past the stretches earlier pops emptied and bound its iterator
 * before the next one, so a pop never crosses a tombstone an earlier pop recorded, however many there are.
 * Passes over the whole set (SRANDMEMBER with a count, SPOP of everything) skip the same runs and count
 * what they see: a count that differs from the metadata's size means the hint was stale, and the pass is
 * repeated without it.
 */
public final class SetPicker {

    private static final byte[] EMPTY = new byte[0];

    private final Keyspace keyspace;
    private final SetPopHints hints;

    public SetPicker(Keyspace keyspace) {
        this.keyspace = keyspace;
        this.hints = keyspace.setPopHints();
    }

    /**
     * Chooses {@code count} distinct members (count below the set's size) to pop and records them as dead
     * in the set's hint. Caller holds the key's lock, commits their removal, and calls
     * {@link SetPopHints#forget} if that commit fails.
     */
    public List<byte[]> pop(byte[] key, Metadata meta, int count, RandomGenerator random) {
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        DeadRuns runs = hints.get(meta.version());
        if (runs == null) {
            runs = learn(ReadOptions.DEFAULT, prefix, meta.version());
            if (runs == null) {
                return List.of();
            }
            hints.put(meta.version(), runs);
        }
        TreeSet<byte[]> picked = new TreeSet<>(Arrays::compareUnsigned);
        for (int attempt = 0; picked.size() < count && attempt < 4 * count + 16; attempt++) {
            byte[] member = pickOne(ReadOptions.DEFAULT, prefix, meta.version(), runs, random, true);
            if (member == null) {
                break;
            }
            picked.add(member);
        }
        if (picked.size() < count) {
            // The hint hid live members (or members too long to record kept coming back): read the set whole.
            hints.forget(meta.version());
            return sample(ReadOptions.DEFAULT, key, meta, count, random);
        }
        List<byte[]> result = new ArrayList<>(picked);
        Collections.shuffle(result, random);
        return result;
    }

    /** One member found the way {@link #pop} finds one, without removing it; null if the set is empty. */
    public byte[] peek(ReadOptions options, byte[] key, Metadata meta, RandomGenerator random) {
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        DeadRuns shared = hints.get(meta.version());
        DeadRuns runs = shared != null ? shared.copy() : learn(options, prefix, meta.version());
        byte[] member = runs == null ? null : pickOne(options, prefix, meta.version(), runs, random, false);
        if (member == null && shared != null) {
            runs = learn(options, prefix, meta.version());
            member = runs == null ? null : pickOne(options, prefix, meta.version(), runs, random, false);
        }
        return member;
    }

    /**
     * {@code count} distinct members chosen uniformly at random, in random order, in one pass over the set
     * with memory for {@code count} members only (reservoir sampling); all of them when the set is smaller.
     */
    public List<byte[]> sample(ReadOptions options, byte[] key, Metadata meta, int count, RandomGenerator random) {
        for (DeadRuns runs : candidates(meta)) {
            List<byte[]> reservoir = new ArrayList<>(Math.min(count, (int) Math.min(meta.size(), 1 << 16)));
            long[] seen = {0};
            long visited = forEachLive(options, key, meta, runs, member -> {
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
            if (runs == null || visited == meta.size()) {
                Collections.shuffle(reservoir, random);
                return reservoir;
            }
        }
        throw new AssertionError("a pass without a hint is always accepted");
    }

    /** Every member, in byte order. */
    public List<byte[]> members(ReadOptions options, byte[] key, Metadata meta) {
        for (DeadRuns runs : candidates(meta)) {
            List<byte[]> out = new ArrayList<>();
            long visited = forEachLive(options, key, meta, runs, out::add);
            if (runs == null || visited == meta.size()) {
                return out;
            }
        }
        throw new AssertionError("a pass without a hint is always accepted");
    }

    /**
     * The members at the given positions of the set's member order (positions ascending, repeats allowed,
     * each below the size), in one pass: {@code result[i]} is the member at {@code positions[i]}. The pass
     * stops once it has them all, so it cannot check its hint; a stale one only shifts which members the
     * positions name.
     */
    public List<byte[]> atPositions(ReadOptions options, byte[] key, Metadata meta, long[] positions) {
        for (DeadRuns runs : candidates(meta)) {
            List<byte[]> out = new ArrayList<>(positions.length);
            long[] index = {0};
            forEachLive(options, key, meta, runs, member -> {
                while (out.size() < positions.length && positions[out.size()] == index[0]) {
                    out.add(member);
                }
                index[0]++;
                return out.size() < positions.length;
            });
            if (out.size() == positions.length || runs == null) {
                return out;
            }
        }
        throw new AssertionError("a pass without a hint is always accepted");
    }

    /** The set's hint (a private copy) and then none: a pass tries the first and falls back to the second. */
    private List<DeadRuns> candidates(Metadata meta) {
        DeadRuns shared = hints.get(meta.version());
        List<DeadRuns> out = new ArrayList<>(2);
        if (shared != null) {
            out.add(shared.copy());
        }
        out.add(null);
        return out;
    }

    /**
     * Visits live members in byte order, skipping the runs (none when null), until the visitor says stop.
     * Returns how many it visited.
     */
    private long forEachLive(ReadOptions options, byte[] key, Metadata meta, DeadRuns runs, Predicate<byte[]> visitor) {
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        long visited = 0;
        byte[] from = runs == null ? EMPTY : runs.skip(EMPTY);
        while (from != null) {
            byte[] limit = runs == null ? null : runs.nextStart(from);
            hints.scanned(meta.version(), from, limit, null);
            try (DbIterator it = keyspace.db().iterator(bounded(options, prefix, from, limit))) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    visited++;
                    if (!visitor.test(KeyEncoding.fieldOfSubkey(it.key(), prefix.length))) {
                        return visited;
                    }
                }
            }
            from = limit == null ? null : runs.skip(limit);
        }
        return visited;
    }

    /**
     * One member: the first live one at or after a random start, skipping runs and bounding each read before
     * the next run. Every stretch found empty joins the runs; a popped member does too. Null if none.
     */
    private byte[] pickOne(ReadOptions options, byte[] prefix, long version, DeadRuns runs, RandomGenerator random,
                           boolean pop) {
        byte[] point = runs.start(random, pop);
        boolean wrapped = false;
        for (int step = 0; step < 2 * DeadRuns.MAX_RUNS + 4; step++) {
            if (point == null) {
                if (wrapped) {
                    return null;
                }
                wrapped = true;
                point = runs.skip(EMPTY);
                continue;
            }
            byte[] limit = runs.nextStart(point);
            byte[] found = firstLive(options, prefix, point, limit);
            hints.scanned(version, point, limit, found);
            if (found != null) {
                runs.observe(found);
                runs.markDead(point, pop ? DeadRuns.successor(found) : found, pop ? 1 : 0);
                return found;
            }
            runs.markDead(point, limit, 0);
            point = limit == null ? null : runs.skip(limit);
        }
        return null;
    }

    private byte[] firstLive(ReadOptions options, byte[] prefix, byte[] from, byte[] limit) {
        try (DbIterator it = keyspace.db().iterator(bounded(options, prefix, from, limit))) {
            it.seekToFirst();
            return it.valid() ? KeyEncoding.fieldOfSubkey(it.key(), prefix.length) : null;
        }
    }

    /** A fresh hint from the set's first and last live members (null if it has none). */
    private DeadRuns learn(ReadOptions options, byte[] prefix, long version) {
        try (DbIterator it = keyspace.db().iterator(bounded(options, prefix, EMPTY, null))) {
            it.seekToFirst();
            if (!it.valid()) {
                return null;
            }
            byte[] first = KeyEncoding.fieldOfSubkey(it.key(), prefix.length);
            hints.scanned(version, EMPTY, null, first);
            it.seekToLast();
            byte[] last = KeyEncoding.fieldOfSubkey(it.key(), prefix.length);
            hints.scanned(version, DeadRuns.successor(last), null, null);
            return new DeadRuns(first, last);
        }
    }

    private static ReadOptions bounded(ReadOptions options, byte[] prefix, byte[] from, byte[] limit) {
        return options.withLowerBound(concat(prefix, from))
                .withUpperBound(limit == null ? KeyEncoding.prefixEnd(prefix) : concat(prefix, limit));
    }

    private static byte[] concat(byte[] prefix, byte[] member) {
        byte[] out = Arrays.copyOf(prefix, prefix.length + member.length);
        System.arraycopy(member, 0, out, prefix.length, member.length);
        return out;
    }
}
