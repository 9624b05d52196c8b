package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.RedisSortedSets;
import io.varve.server.types.Scored;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Sorted-set commands that add, remove, look up or pop members, over {@link RedisSortedSets}, which owns the
 * storage rules. Ranges are in {@link ZRangeCommands}, unions and intersections in {@link ZSetAlgebra},
 * random picks and ZSCAN in {@link ZSetSampling}.
 */
final class ZSetCommands {

    private ZSetCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("zadd", -4, "write denyoom fast", 1, 1, 1, ZSetCommands::zadd);
        b.add("zincrby", 4, "write denyoom fast", 1, 1, 1, ZSetCommands::zincrby);
        b.add("zrem", -3, "write fast", 1, 1, 1, ZSetCommands::zrem);
        b.add("zscore", 3, "readonly fast", 1, 1, 1,
                c -> replyScore(c.reply(), c.types().sortedSets().score(c.arg(1), c.arg(2))));
        b.add("zmscore", -3, "readonly fast", 1, 1, 1, ZSetCommands::zmscore);
        b.add("zcard", 2, "readonly fast", 1, 1, 1, c -> c.reply().integer(c.types().sortedSets().size(c.arg(1))));
        b.add("zrank", -3, "readonly fast", 1, 1, 1, c -> zrank(c, false));
        b.add("zrevrank", -3, "readonly fast", 1, 1, 1, c -> zrank(c, true));
        b.add("zpopmin", -2, "write fast", 1, 1, 1, c -> zpop(c, false));
        b.add("zpopmax", -2, "write fast", 1, 1, 1, c -> zpop(c, true));
        b.add("zmpop", -4, "write", List.of(KeySpec.counted(1)), ZSetCommands::zmpop);
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
        List<byte[]> members = new ArrayList<>(scores.length);
        for (int p = 0; p < scores.length; p++) {
            members.add(c.arg(i + 2 * p + 1));
        }
        RedisSortedSets.AddOutcome outcome = c.types().sortedSets().add(c.arg(1), scores, members,
                new RedisSortedSets.AddRules(nx, xx, gt, lt, incr));
        if (incr) {
            replyScore(c.reply(), outcome.score());
        } else {
            c.reply().integer(ch ? outcome.added() + outcome.updated() : outcome.added());
        }
    }

    private static void zincrby(CommandCall c) {
        double delta = Args.parseDouble(c.arg(2));
        c.reply().doubleValue(c.types().sortedSets().incrementBy(c.arg(1), c.arg(3), delta));
    }

    private static void zrem(CommandCall c) {
        c.reply().integer(c.types().sortedSets().remove(c.arg(1), Arrays.asList(c.args()).subList(2, c.argCount())));
    }

    private static void zmscore(CommandCall c) {
        List<Double> scores = c.types().sortedSets().scores(c.arg(1), Arrays.asList(c.args()).subList(2, c.argCount()));
        c.reply().arrayHeader(scores.size());
        for (Double score : scores) {
            replyScore(c.reply(), score);
        }
    }

    private static void zrank(CommandCall c, boolean reverse) {
        boolean withScore = false;
        if (c.argCount() == 4 && c.argIs(3, "withscore")) {
            withScore = true;
        } else if (c.argCount() != 3) {
            throw RedisError.syntax();
        }
        RedisSortedSets.Rank rank = c.types().sortedSets().rank(c.arg(1), c.arg(2), reverse);
        Reply r = c.reply();
        if (rank == null) {
            if (withScore) {
                r.nullArray();
            } else {
                r.nil();
            }
            return;
        }
        if (withScore) {
            r.arrayHeader(2);
            r.integer(rank.rank());
            r.doubleValue(rank.score());
        } else {
            r.integer(rank.rank());
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
        List<Scored> popped = c.types().sortedSets().pop(c.arg(1), max, count);
        Reply r = c.reply();
        if (counted) {
            ScoredReplies.reply(r, popped, true);
        } else {
            r.arrayHeader(popped.isEmpty() ? 0 : 2);
            for (Scored s : popped) {
                r.bulk(s.member());
                r.doubleValue(s.score());
            }
        }
    }

    /** ZPOPMIN/ZPOPMAX for a caller that holds the key's lock (a blocking pop). */
    static List<Scored> popLocked(CommandCall c, byte[] key, boolean max, long count) {
        return c.types().sortedSets().popLocked(key, max, count);
    }

    /** The parsed arguments of ZMPOP and BZMPOP: numkeys key... MIN|MAX [COUNT n]. */
    record MultiPop(List<byte[]> keys, boolean max, long count) {

        /** Parses from the numkeys argument at {@code numKeysIndex}, with Redis's error words. */
        static MultiPop parse(CommandCall c, int numKeysIndex) {
            Long numKeys = Args.tryParseLong(c.arg(numKeysIndex));
            if (numKeys == null || numKeys < 1) {
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
                    if (n == null || n < 1) {
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
            ScoredReplies.replyPairs(r, popped);
        }
    }

    private static void zmpop(CommandCall c) {
        MultiPop request = MultiPop.parse(c, 1);
        RedisSortedSets.Popped popped = c.types().sortedSets().popFirst(request.keys(), request.max(), request.count());
        if (popped == null) {
            c.reply().nullArray();
        } else {
            MultiPop.reply(c.reply(), popped.key(), popped.members());
        }
    }
}
