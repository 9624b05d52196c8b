package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.ScoreCodec;
import io.varve.server.store.ZSetEdit;
import io.varve.server.store.ZSetStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Sorted-set commands that add, remove, look up or pop members ({@link ZSetStore} has the layout). Writers
 * hold the key's lock and stage their changes in a {@link ZSetEdit}, committed as one batch with the
 * metadata's new size; readers of more than one record read at a snapshot. Ranges are in
 * {@link ZRangeCommands}, unions and intersections in {@link ZSetAlgebra}, random picks and ZSCAN in
 * {@link ZSetSampling}.
 */
final class ZSetCommands {

    static final String NAN_SCORE = "ERR resulting score is not a number (NaN)";

    private ZSetCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("zadd", -4, "write denyoom fast", 1, 1, 1, ZSetCommands::zadd);
        b.add("zincrby", 4, "write denyoom fast", 1, 1, 1, ZSetCommands::zincrby);
        b.add("zrem", -3, "write fast", 1, 1, 1, ZSetCommands::zrem);
        b.add("zscore", 3, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.ZSET);
            Double score = meta == null ? null : store(c).score(ReadOptions.DEFAULT, c.arg(1), meta, c.arg(2));
            replyScore(c.reply(), score);
        });
        b.add("zmscore", -3, "readonly fast", 1, 1, 1, ZSetCommands::zmscore);
        b.add("zcard", 2, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.ZSET);
            c.reply().integer(meta == null ? 0 : meta.size());
        });
        b.add("zrank", -3, "readonly fast", 1, 1, 1, c -> zrank(c, false));
        b.add("zrevrank", -3, "readonly fast", 1, 1, 1, c -> zrank(c, true));
        b.add("zpopmin", -2, "write fast", 1, 1, 1, c -> zpop(c, false));
        b.add("zpopmax", -2, "write fast", 1, 1, 1, c -> zpop(c, true));
        b.add("zmpop", -4, "write", List.of(KeySpec.counted(1)), ZSetCommands::zmpop);
    }

    static ZSetStore store(CommandCall c) {
        return new ZSetStore(c.keyspace());
    }

    static void replyScore(Reply r, Double score) {
        if (score == null) {
            r.nil();
        } else {
            r.doubleValue(score);
        }
    }

    private static void zadd(CommandCall c) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        boolean ch = false;
        boolean incr = false;
        int i = 2;
        for (; i < c.argCount(); i++) {
            if (c.argIs(i, "nx")) {
                nx = true;
            } else if (c.argIs(i, "xx")) {
                xx = true;
            } else if (c.argIs(i, "gt")) {
                gt = true;
            } else if (c.argIs(i, "lt")) {
                lt = true;
            } else if (c.argIs(i, "ch")) {
                ch = true;
            } else if (c.argIs(i, "incr")) {
                incr = true;
            } else {
                break;
            }
        }
        int elements = c.argCount() - i;
        if (elements == 0 || elements % 2 != 0) {
            throw RedisError.syntax();
        }
        if (nx && xx) {
            throw new RedisError("ERR XX and NX options at the same time are not compatible");
        }
        if ((gt && nx) || (lt && nx) || (gt && lt)) {
            throw new RedisError("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && elements > 2) {
            throw new RedisError("ERR INCR option supports a single increment-element pair");
        }
        double[] scores = new double[elements / 2];
        for (int p = 0; p < scores.length; p++) {
            scores[p] = Args.parseDouble(c.arg(i + 2 * p));
        }
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.ZSET);
            ZSetEdit edit = new ZSetEdit(store(c), key, meta);
            long added = 0;
            long updated = 0;
            Double result = null;
            for (int p = 0; p < scores.length; p++) {
                byte[] member = c.arg(i + 2 * p + 1);
                Double current = edit.score(member);
                if (current == null) {
                    if (xx) {
                        continue;
                    }
                    edit.put(member, scores[p]);
                    result = scores[p];
                    added++;
                    continue;
                }
                if (nx) {
                    continue;
                }
                double next = incr ? current + scores[p] : scores[p];
                if (Double.isNaN(next)) {
                    throw new RedisError(NAN_SCORE);
                }
                if ((gt && next <= current) || (lt && next >= current)) {
                    continue;
                }
                result = next;
                if (next != current) {
                    edit.put(member, next);
                    updated++;
                }
            }
            edit.commit(ks);
            if (incr) {
                replyScore(c.reply(), result == null ? null : ScoreCodec.normalize(result));
            } else {
                c.reply().integer(ch ? added + updated : added);
            }
        }
        ks.blocking().signal(key);
    }

    private static void zincrby(CommandCall c) {
        double delta = Args.parseDouble(c.arg(2));
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            ZSetEdit edit = new ZSetEdit(store(c), key, ks.lookup(key, RedisType.ZSET));
            Double current = edit.score(c.arg(3));
            double next = current == null ? delta : current + delta;
            if (Double.isNaN(next)) {
                throw new RedisError(NAN_SCORE);
            }
            edit.put(c.arg(3), next);
            edit.commit(ks);
            c.reply().doubleValue(ScoreCodec.normalize(next));
        }
        ks.blocking().signal(key);
    }

    private static void zrem(CommandCall c) {
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.ZSET);
            if (meta == null) {
                c.reply().integer(0);
                return;
            }
            ZSetEdit edit = new ZSetEdit(store(c), key, meta);
            long removed = 0;
            for (int i = 2; i < c.argCount(); i++) {
                removed += edit.remove(c.arg(i)) ? 1 : 0;
            }
            edit.commit(ks);
            c.reply().integer(removed);
        }
    }

    private static void zmscore(CommandCall c) {
        Keyspace ks = c.keyspace();
        ZSetStore store = store(c);
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.ZSET);
            c.reply().arrayHeader(c.argCount() - 2);
            for (int i = 2; i < c.argCount(); i++) {
                replyScore(c.reply(), meta == null ? null : store.score(at, c.arg(1), meta, c.arg(i)));
            }
        }
    }

    private static void zrank(CommandCall c, boolean reverse) {
        boolean withScore = false;
        if (c.argCount() == 4 && c.argIs(3, "withscore")) {
            withScore = true;
        } else if (c.argCount() != 3) {
            throw RedisError.syntax();
        }
        Keyspace ks = c.keyspace();
        ZSetStore store = store(c);
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.ZSET);
            Double score = meta == null ? null : store.score(at, c.arg(1), meta, c.arg(2));
            Reply r = c.reply();
            if (score == null) {
                if (withScore) {
                    r.nullArray();
                } else {
                    r.nil();
                }
                return;
            }
            long rank = new ZRangeQuery(store, at, c.arg(1), meta).rankOf(c.arg(2), reverse);
            if (withScore) {
                r.arrayHeader(2);
                r.integer(rank);
                r.doubleValue(score);
            } else {
                r.integer(rank);
            }
        }
    }

    private static void zpop(CommandCall c, boolean max) {
        if (c.argCount() > 3) {
            throw RedisError.syntax();
        }
        long count = 1;
        boolean counted = c.argCount() == 3;
        if (counted) {
            Long n = Args.tryParseLong(c.arg(2));
            if (n == null || n < 0) {
                throw new RedisError("ERR value is out of range, must be positive");
            }
            count = n;
        }
        List<Scored> popped = pop(c, c.arg(1), max, count);
        Reply r = c.reply();
        if (counted) {
            Scored.reply(r, popped, true);
        } else {
            r.arrayHeader(popped.isEmpty() ? 0 : 2);
            for (Scored s : popped) {
                r.bulk(s.member());
                r.doubleValue(s.score());
            }
        }
    }

    /** Removes and returns up to {@code count} lowest (highest when {@code max}) members of {@code key}. */
    static List<Scored> pop(CommandCall c, byte[] key, boolean max, long count) {
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lock(key)) {
            return popLocked(c, key, max, count);
        }
    }

    /** {@link #pop} for a caller that holds the key's lock. */
    static List<Scored> popLocked(CommandCall c, byte[] key, boolean max, long count) {
        Keyspace ks = c.keyspace();
        Metadata meta = ks.lookup(key, RedisType.ZSET);
        if (meta == null || count == 0) {
            return List.of();
        }
        ZSetStore store = store(c);
        List<Scored> out = new ArrayList<>((int) Math.min(count, Math.min(meta.size(), 1024)));
        store.scanAll(ReadOptions.DEFAULT, key, meta, max, (member, score) -> {
            out.add(new Scored(member, score));
            return out.size() < count;
        });
        ZSetEdit edit = new ZSetEdit(store, key, meta);
        for (Scored s : out) {
            edit.removeKnown(s.member(), s.score());
        }
        edit.commit(ks);
        return out;
    }

    /** The parsed arguments of ZMPOP and BZMPOP: numkeys key... MIN|MAX [COUNT n]. */
    record MultiPop(List<byte[]> keys, boolean max, long count) {

        /** Parses from the numkeys argument at {@code numKeysIndex}, with Redis's error words. */
        static MultiPop parse(CommandCall c, int numKeysIndex) {
            Long numKeys = Args.tryParseLong(c.arg(numKeysIndex));
            if (numKeys == null) {
                throw RedisError.notInteger();
            }
            if (numKeys < 1) {
                throw new RedisError("ERR numkeys should be greater than 0");
            }
            if (numKeys >= c.argCount()) {
                throw RedisError.syntax();
            }
            long whereIndex = numKeysIndex + 1 + numKeys;
            if (whereIndex >= c.argCount()) {
                throw RedisError.syntax();
            }
            boolean max;
            if (c.argIs((int) whereIndex, "min")) {
                max = false;
            } else if (c.argIs((int) whereIndex, "max")) {
                max = true;
            } else {
                throw RedisError.syntax();
            }
            long count = -1;
            for (int i = (int) whereIndex + 1; i < c.argCount(); i++) {
                if (count == -1 && c.argIs(i, "count") && i + 1 < c.argCount()) {
                    Long n = Args.tryParseLong(c.arg(++i));
                    if (n == null) {
                        throw RedisError.notInteger();
                    }
                    if (n < 1) {
                        throw new RedisError("ERR count should be greater than 0");
                    }
                    count = n;
                } else {
                    throw RedisError.syntax();
                }
            }
            List<byte[]> keys = Arrays.asList(c.args()).subList(numKeysIndex + 1, (int) whereIndex);
            return new MultiPop(keys, max, count == -1 ? 1 : count);
        }

        /** [key, [[member, score], ...]], in both protocols. */
        static void reply(Reply r, byte[] key, List<Scored> popped) {
            r.arrayHeader(2);
            r.bulk(key);
            Scored.replyPairs(r, popped);
        }
    }

    private static void zmpop(CommandCall c) {
        MultiPop request = MultiPop.parse(c, 1);
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lockAll(request.keys().toArray(new byte[0][]))) {
            for (byte[] key : request.keys()) {
                List<Scored> popped = popLocked(c, key, request.max(), request.count());
                if (!popped.isEmpty()) {
                    MultiPop.reply(c.reply(), key, popped);
                    return;
                }
            }
        }
        c.reply().nullArray();
    }
}
