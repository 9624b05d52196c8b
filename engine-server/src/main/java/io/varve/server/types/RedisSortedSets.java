package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.ScoreCodec;
import io.varve.server.store.SetStore;
import io.varve.server.store.ZSetEdit;
import io.varve.server.store.ZSetStore;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The sorted-set type ({@link ZSetStore} has the layout: a member subkey and a score-index subkey per
 * member). Writers hold the key's stripe lock and stage their changes in a {@link ZSetEdit}, committed as
 * one batch with the metadata's new size; a set that runs empty is deleted. Reads of more than one record
 * run at a snapshot. Writes that may fill a key wake the clients blocked on it.
 */
public final class RedisSortedSets {

    private final Keyspace keyspace;
    private final ZSetStore store;
    private final SortedSetAlgebra algebra;

    RedisSortedSets(Keyspace keyspace) {
        this.keyspace = keyspace;
        this.store = new ZSetStore(keyspace);
        this.algebra = new SortedSetAlgebra(keyspace, store, new SetStore(keyspace));
    }

    /** ZADD's conditions: NX, XX, GT, LT, and INCR (the one score is an increment). */
    public record AddRules(boolean nx, boolean xx, boolean gt, boolean lt, boolean incr) {
    }

    /**
     * What ZADD did: members added, members whose score changed, and with INCR the member's new score (null
     * when a condition left it alone).
     */
    public record AddOutcome(long added, long updated, Double score) {
    }

    /** ZADD of {@code members[i]} with {@code scores[i]}, applied in order under the rules. */
    public AddOutcome add(byte[] key, double[] scores, List<byte[]> members, AddRules rules) {
        AddOutcome outcome;
        try (LockStripes.Held held = keyspace.lock(key)) {
            ZSetEdit edit = new ZSetEdit(store, key, keyspace.lookup(key, RedisType.ZSET));
            long added = 0;
            long updated = 0;
            Double result = null;
            for (int p = 0; p < scores.length; p++) {
                byte[] member = members.get(p);
                Double current = edit.score(member);
                if (current == null) {
                    if (rules.xx()) {
                        continue;
                    }
                    edit.put(member, scores[p]);
                    result = scores[p];
                    added++;
                    continue;
                }
                if (rules.nx()) {
                    continue;
                }
                double next = rules.incr() ? current + scores[p] : scores[p];
                if (Double.isNaN(next)) {
                    throw new NotANumberScoreException();
                }
                if ((rules.gt() && next <= current) || (rules.lt() && next >= current)) {
                    continue;
                }
                result = next;
                if (next != current) {
                    edit.put(member, next);
                    updated++;
                }
            }
            edit.commit(keyspace);
            outcome = new AddOutcome(added, updated, result == null ? null : ScoreCodec.normalize(result));
        }
        keyspace.blocking().signal(key);
        return outcome;
    }

    /** ZINCRBY: returns the member's new score. */
    public double incrementBy(byte[] key, byte[] member, double delta) {
        double next;
        try (LockStripes.Held held = keyspace.lock(key)) {
            ZSetEdit edit = new ZSetEdit(store, key, keyspace.lookup(key, RedisType.ZSET));
            Double current = edit.score(member);
            next = current == null ? delta : current + delta;
            if (Double.isNaN(next)) {
                throw new NotANumberScoreException();
            }
            edit.put(member, next);
            edit.commit(keyspace);
        }
        keyspace.blocking().signal(key);
        return ScoreCodec.normalize(next);
    }

    /** ZREM: returns how many members were removed. */
    public long remove(byte[] key, List<byte[]> members) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.ZSET);
            if (meta == null) {
                return 0;
            }
            ZSetEdit edit = new ZSetEdit(store, key, meta);
            long removed = 0;
            for (byte[] member : members) {
                removed += edit.remove(member) ? 1 : 0;
            }
            edit.commit(keyspace);
            return removed;
        }
    }

    /** ZSCORE: the member's score, null when it or the key is absent. */
    public Double score(byte[] key, byte[] member) {
        Metadata meta = keyspace.lookup(key, RedisType.ZSET);
        return meta == null ? null : store.score(ReadOptions.DEFAULT, key, meta, member);
    }

    /** ZMSCORE: the members' scores (null where absent), read at one snapshot. */
    public List<Double> scores(byte[] key, List<byte[]> members) {
        List<Double> out = new ArrayList<>(members.size());
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.ZSET);
            for (byte[] member : members) {
                out.add(meta == null ? null : store.score(at, key, meta, member));
            }
        }
        return out;
    }

    /** ZCARD: the member count, 0 for an absent key. */
    public long size(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.ZSET);
        return meta == null ? 0 : meta.size();
    }

    /** A member's 0-based rank and its score. */
    public record Rank(long rank, double score) {
    }

    /** ZRANK/ZREVRANK: the member's rank (from the highest score when {@code reverse}), or null if absent. */
    public Rank rank(byte[] key, byte[] member, boolean reverse) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.ZSET);
            Double score = meta == null ? null : store.score(at, key, meta, member);
            if (score == null) {
                return null;
            }
            return new Rank(new ZRangeQuery(store, at, key, meta).rankOf(member, reverse), score);
        }
    }

    /** ZPOPMIN/ZPOPMAX: removes and returns up to {@code count} lowest (highest when {@code max}) members. */
    public List<Scored> pop(byte[] key, boolean max, long count) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            return popLocked(key, max, count);
        }
    }

    /** {@link #pop} for a caller that holds the key's lock (a blocking pop that checks and parks under it). */
    public List<Scored> popLocked(byte[] key, boolean max, long count) {
        Metadata meta = keyspace.lookup(key, RedisType.ZSET);
        if (meta == null || count == 0) {
            return List.of();
        }
        List<Scored> out = new ArrayList<>((int) Math.min(count, Math.min(meta.size(), 1024)));
        store.scanAll(ReadOptions.DEFAULT, key, meta, max, (member, score) -> {
            out.add(new Scored(member, score));
            return out.size() < count;
        });
        ZSetEdit edit = new ZSetEdit(store, key, meta);
        for (Scored s : out) {
            edit.removeKnown(s.member(), s.score());
        }
        edit.commit(keyspace);
        return out;
    }

    /** A ZMPOP's result: the key popped from and its members. */
    public record Popped(byte[] key, List<Scored> members) {
    }

    /** ZMPOP: pops from the first of {@code keys} that has members, under all their locks; null if none has. */
    public Popped popFirst(List<byte[]> keys, boolean max, long count) {
        try (LockStripes.Held held = keyspace.lockAll(keys.toArray(new byte[0][]))) {
            for (byte[] key : keys) {
                List<Scored> popped = popLocked(key, max, count);
                if (!popped.isEmpty()) {
                    return new Popped(key, popped);
                }
            }
            return null;
        }
    }

    /** ZRANGE and its older spellings: the members {@code range} selects, read at one snapshot. */
    public List<Scored> range(byte[] key, SortedRange range, boolean reverse, long offset, long count) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.ZSET);
            return meta == null ? List.of() : new ZRangeQuery(store, at, key, meta).select(range, reverse, offset, count);
        }
    }

    /** ZRANGESTORE: replaces {@code destination} with the selected members; returns how many. */
    public long rangeInto(byte[] destination, byte[] source, SortedRange range, boolean reverse, long offset,
                          long count) {
        long stored;
        try (LockStripes.Held held = keyspace.lockAll(destination, source)) {
            Metadata meta = keyspace.lookup(source, RedisType.ZSET);
            List<Scored> items = meta == null ? List.of()
                    : new ZRangeQuery(store, ReadOptions.DEFAULT, source, meta).select(range, reverse, offset, count);
            replaceLocked(destination, items);
            stored = items.size();
        }
        keyspace.blocking().signal(destination);
        return stored;
    }

    /**
     * Replaces {@code destination} with what {@code select} picks from every member of {@code source} (in
     * score order), under both keys' locks (GEOSEARCHSTORE, GEORADIUS ... STORE); returns how many it stored.
     */
    public long selectInto(byte[] destination, byte[] source, UnaryOperator<List<Scored>> select) {
        long stored;
        try (LockStripes.Held held = keyspace.lockAll(destination, source)) {
            List<Scored> items = select.apply(all(source));
            replaceLocked(destination, items);
            stored = items.size();
        }
        keyspace.blocking().signal(destination);
        return stored;
    }

    /** ZCOUNT (a score range) and ZLEXCOUNT (a member range). */
    public long count(byte[] key, SortedRange range) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.ZSET);
            if (meta == null) {
                return 0;
            }
            ZRangeQuery query = new ZRangeQuery(store, at, key, meta);
            return switch (range) {
                case ScoreRange scores -> query.countByScore(scores);
                case LexRange members -> query.countByLex(members);
                case RankRange ranks -> query.byRank(ranks.start(), ranks.stop(), false).size();
            };
        }
    }

    /** ZREMRANGEBYRANK/SCORE/LEX: removes the selected members; returns how many. */
    public long removeRange(byte[] key, SortedRange range) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.ZSET);
            if (meta == null) {
                return 0;
            }
            List<Scored> doomed = new ZRangeQuery(store, ReadOptions.DEFAULT, key, meta).select(range, false, 0, -1);
            ZSetEdit edit = new ZSetEdit(store, key, meta);
            for (Scored s : doomed) {
                edit.removeKnown(s.member(), s.score());
            }
            edit.commit(keyspace);
            return doomed.size();
        }
    }

    /**
     * Replaces {@code destination} (any type) with a new sorted set of {@code items} (distinct members), or
     * deletes it when there are none. Caller holds the destination's lock.
     */
    private void replaceLocked(byte[] destination, List<Scored> items) {
        WriteBatch batch = new WriteBatch();
        if (items.isEmpty()) {
            if (keyspace.header(destination) == null) {
                return;
            }
            keyspace.deleteMetadata(batch, destination);
        } else {
            Metadata meta = store.create().withSize(items.size());
            for (Scored s : items) {
                store.put(batch, destination, meta, s.member(), null, s.score());
            }
            keyspace.putMetadata(batch, destination, meta);
        }
        keyspace.commit(batch);
    }

    /**
     * ZUNION, ZINTER, ZDIFF and ZINTERCARD over the inputs (sorted sets or plain sets), read at one snapshot,
     * in (score, member) order; an intersection stops at {@code limit} members (0: all).
     */
    public List<Scored> combine(List<byte[]> keys, double[] weights, Aggregate aggregate,
                                SortedSetOperation operation, long limit) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            return algebra.evaluate(ReadOptions.at(snapshot), new SortedSetAlgebra.Request(keys, weights, aggregate),
                    operation, limit);
        }
    }

    /** The STORE forms: replaces {@code destination} with the result under all the keys' locks; its size. */
    public long combineInto(byte[] destination, List<byte[]> keys, double[] weights, Aggregate aggregate,
                            SortedSetOperation operation) {
        byte[][] locked = keys.toArray(new byte[keys.size() + 1][]);
        locked[keys.size()] = destination;
        long stored;
        try (LockStripes.Held held = keyspace.lockAll(locked)) {
            List<Scored> result = algebra.evaluate(ReadOptions.DEFAULT,
                    new SortedSetAlgebra.Request(keys, weights, aggregate), operation, 0);
            replaceLocked(destination, result);
            stored = result.size();
        }
        keyspace.blocking().signal(destination);
        return stored;
    }

    /** Every member with its score in score order, read at one snapshot (ZRANDMEMBER picks from it). */
    public List<Scored> all(byte[] key) {
        List<Scored> all = new ArrayList<>();
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.ZSET);
            if (meta != null) {
                store.scanAll(at, key, meta, false, (member, score) -> {
                    all.add(new Scored(member, score));
                    return true;
                });
            }
        }
        return all;
    }

    /**
     * Visits members and scores in member byte order at one snapshot, after {@code afterMember} (null: from
     * the first), until the visitor returns false.
     */
    public void forEachByMember(byte[] key, byte[] afterMember, ZSetStore.Visitor visitor) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.ZSET);
            if (meta != null) {
                store.scanByMember(at, key, meta, afterMember, false, false, visitor);
            }
        }
    }
}
