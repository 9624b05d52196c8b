package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.util.Arrays;

/**
 * Sorted sets as two kinds of subkeys of one collection version (see {@link KeyEncoding} for the subkey
 * prefix {@code 's' | len | key | version}):
 *
 * <pre>
 *  member subkey  | prefix | 0x00 | member ...                     |  value: score, IEEE 754 bits (8)
 *  score subkey   | prefix | 0x01 | score, sortable (8) | member ... |  value: empty
 * </pre>
 *
 * The member subkeys answer ZSCORE with one point lookup and list members in byte order (lexicographic
 * ranges, ZSCAN); the score subkeys list members in (score, member) order — Redis's sorted-set order — so a
 * score range is one bounded scan from a seek ({@link ScoreCodec} makes byte order numeric order). Every
 * member has exactly one of each, written and deleted together in one batch; the metadata's size counts
 * members. Both kinds share the version prefix, so DEL, overwrite, RENAME, COPY and the compaction filter
 * treat them like any other collection's subkeys.
 */
public final class ZSetStore {

    static final byte MEMBER_TAG = 0;
    static final byte SCORE_TAG = 1;

    private final Keyspace keyspace;

    /** Visits one member and its score; returns false to stop. */
    @FunctionalInterface
    public interface Visitor {
        boolean visit(byte[] member, double score);
    }

    public ZSetStore(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    public Keyspace keyspace() {
        return keyspace;
    }

    /** Metadata for a brand-new, empty sorted set: a fresh version so no stale subkeys show through. */
    public Metadata create() {
        return Metadata.collection(RedisType.ZSET, 0, keyspace.newVersion(), 0);
    }

    /** The score of {@code member}, or null when it is not in the set. */
    public Double score(ReadOptions options, byte[] key, Metadata meta, byte[] member) {
        byte[] raw = keyspace.db().get(options, memberSubkey(key, meta.version(), member));
        return raw == null ? null : ScoreCodec.fromValueBytes(raw);
    }

    /** Sets {@code member}'s score, replacing its index entry if it had {@code oldScore} (null: new member). */
    public void put(WriteBatch batch, byte[] key, Metadata meta, byte[] member, Double oldScore, double score) {
        if (oldScore != null) {
            batch.delete(scoreSubkey(key, meta.version(), oldScore, member));
        }
        batch.put(memberSubkey(key, meta.version(), member), ScoreCodec.valueBytes(score));
        batch.put(scoreSubkey(key, meta.version(), score, member), new byte[0]);
    }

    public void remove(WriteBatch batch, byte[] key, Metadata meta, byte[] member, double score) {
        batch.delete(memberSubkey(key, meta.version(), member));
        batch.delete(scoreSubkey(key, meta.version(), score, member));
    }

    /**
     * Visits members in (score, member) order — descending when {@code reverse} — starting at the first
     * member whose score is at least {@code from} (reverse: at most {@code from}).
     */
    public void scanByScore(ReadOptions options, byte[] key, Metadata meta, double from, boolean reverse,
                            Visitor visitor) {
        byte[] tagPrefix = tagPrefix(key, meta.version(), SCORE_TAG);
        byte[] scorePrefix = Arrays.copyOf(tagPrefix, tagPrefix.length + ScoreCodec.LENGTH);
        ScoreCodec.encode(from, scorePrefix, tagPrefix.length);
        try (DbIterator it = rangeIterator(options, tagPrefix)) {
            if (!reverse) {
                it.seek(scorePrefix);
            } else {
                seekAtOrBefore(it, KeyEncoding.prefixEnd(scorePrefix));
            }
            int memberOffset = scorePrefix.length;
            for (; it.valid(); step(it, reverse)) {
                byte[] k = it.key();
                double score = ScoreCodec.decode(k, tagPrefix.length);
                if (!visitor.visit(Arrays.copyOfRange(k, memberOffset, k.length), score)) {
                    return;
                }
            }
        }
    }

    /** Visits every member in (score, member) order from the lowest (reverse: from the highest). */
    public void scanAll(ReadOptions options, byte[] key, Metadata meta, boolean reverse, Visitor visitor) {
        scanByScore(options, key, meta, reverse ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY, reverse,
                visitor);
    }

    /**
     * Visits members in byte order (descending when {@code reverse}), starting at {@code from} — null: at the
     * first (last) member — and skipping {@code from} itself unless {@code inclusive}.
     */
    public void scanByMember(ReadOptions options, byte[] key, Metadata meta, byte[] from, boolean inclusive,
                             boolean reverse, Visitor visitor) {
        byte[] tagPrefix = tagPrefix(key, meta.version(), MEMBER_TAG);
        try (DbIterator it = rangeIterator(options, tagPrefix)) {
            byte[] start = from == null ? null : concat(tagPrefix, from);
            if (start == null) {
                if (reverse) {
                    it.seekToLast();
                } else {
                    it.seekToFirst();
                }
            } else if (reverse) {
                it.seekForPrev(start);
            } else {
                it.seek(start);
            }
            if (start != null && !inclusive && it.valid() && Arrays.equals(it.key(), start)) {
                step(it, reverse);
            }
            for (; it.valid(); step(it, reverse)) {
                byte[] k = it.key();
                if (!visitor.visit(Arrays.copyOfRange(k, tagPrefix.length, k.length),
                        ScoreCodec.fromValueBytes(it.value()))) {
                    return;
                }
            }
        }
    }

    private DbIterator rangeIterator(ReadOptions options, byte[] tagPrefix) {
        return keyspace.db().iterator(options.withLowerBound(tagPrefix)
                .withUpperBound(KeyEncoding.prefixEnd(tagPrefix)));
    }

    /** Positions at the last key strictly before {@code bound} (null: the last key of the range). */
    private static void seekAtOrBefore(DbIterator it, byte[] bound) {
        if (bound == null) {
            it.seekToLast();
            return;
        }
        it.seekForPrev(bound);
        if (it.valid() && Arrays.equals(it.key(), bound)) {
            it.prev();
        }
    }

    private static void step(DbIterator it, boolean reverse) {
        if (reverse) {
            it.prev();
        } else {
            it.next();
        }
    }

    private byte[] tagPrefix(byte[] key, long version, byte tag) {
        byte[] prefix = keyspace.database().subkeyPrefix(key, version);
        byte[] out = Arrays.copyOf(prefix, prefix.length + 1);
        out[prefix.length] = tag;
        return out;
    }

    private byte[] memberSubkey(byte[] key, long version, byte[] member) {
        return concat(tagPrefix(key, version, MEMBER_TAG), member);
    }

    private byte[] scoreSubkey(byte[] key, long version, double score, byte[] member) {
        byte[] tagPrefix = tagPrefix(key, version, SCORE_TAG);
        byte[] out = new byte[tagPrefix.length + ScoreCodec.LENGTH + member.length];
        System.arraycopy(tagPrefix, 0, out, 0, tagPrefix.length);
        ScoreCodec.encode(score, out, tagPrefix.length);
        System.arraycopy(member, 0, out, tagPrefix.length + ScoreCodec.LENGTH, member.length);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
