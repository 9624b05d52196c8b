package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.types.Aggregate;
import io.varve.server.types.Scored;
import io.varve.server.types.SortedSetOperation;

import java.util.Arrays;
import java.util.List;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms, and ZINTERCARD: Redis's argument order, WEIGHTS and AGGREGATE
 * parsed here; the evaluation (in memory, in (score, member) order, over sorted sets or plain sets) is
 * {@link io.varve.server.types.RedisSortedSets#combine}'s.
 */
final class ZSetAlgebra {

    private ZSetAlgebra() {
    }

    /** The destination, then a counted list of sources. */
    private static final List<KeySpec> STORE_KEYS = List.of(KeySpec.single(1), KeySpec.counted(2));

    static void register(CommandTable.Builder b) {
        b.add("zunion", -3, "readonly", List.of(KeySpec.counted(1)), c -> compute(c, SortedSetOperation.UNION, false));
        b.add("zinter", -3, "readonly", List.of(KeySpec.counted(1)), c -> compute(c, SortedSetOperation.INTERSECTION, false));
        b.add("zdiff", -3, "readonly", List.of(KeySpec.counted(1)), c -> compute(c, SortedSetOperation.DIFFERENCE, false));
        b.add("zunionstore", -4, "write denyoom", STORE_KEYS, c -> compute(c, SortedSetOperation.UNION, true));
        b.add("zinterstore", -4, "write denyoom", STORE_KEYS, c -> compute(c, SortedSetOperation.INTERSECTION, true));
        b.add("zdiffstore", -4, "write denyoom", STORE_KEYS, c -> compute(c, SortedSetOperation.DIFFERENCE, true));
        b.add("zintercard", -3, "readonly", List.of(KeySpec.counted(1)), ZSetAlgebra::interCard);
    }

    /** The parsed arguments: input keys and their weights, the aggregate, WITHSCORES, LIMIT. */
    private record Inputs(List<byte[]> keys, double[] weights, Aggregate aggregate, boolean withScores, long limit) {
    }

    private static Inputs parse(CommandCall c, int numKeysIndex, SortedSetOperation op, boolean store, boolean cardinalityOnly) {
        long numKeys = c.argLong(numKeysIndex);
        if (numKeys < 1) {
            throw new RedisError("ERR at least 1 input key is needed for '" + c.spec().name() + "' command");
        }
        if (numKeys > c.argCount() - numKeysIndex - 1) {
            throw RedisError.syntax();
        }
        List<byte[]> keys = Arrays.asList(c.args()).subList(numKeysIndex + 1, numKeysIndex + 1 + (int) numKeys);
        double[] weights = new double[keys.size()];
        Arrays.fill(weights, 1);
        Aggregate aggregate = Aggregate.SUM;
        boolean withScores = false;
        long limit = 0;
        int j = numKeysIndex + 1 + keys.size();
        while (j < c.argCount()) {
            int remaining = c.argCount() - j;
            if (op != SortedSetOperation.DIFFERENCE && !cardinalityOnly && remaining >= keys.size() + 1 && c.argIs(j, "weights")) {
                j++;
                for (int i = 0; i < keys.size(); i++, j++) {
                    try {
                        weights[i] = Args.parseDouble(c.arg(j));
                    } catch (RedisError e) {
                        throw new RedisError("ERR weight value is not a float");
                    }
                }
            } else if (op != SortedSetOperation.DIFFERENCE && !cardinalityOnly && remaining >= 2 && c.argIs(j, "aggregate")) {
                j++;
                if (c.argIs(j, "sum")) {
                    aggregate = Aggregate.SUM;
                } else if (c.argIs(j, "min")) {
                    aggregate = Aggregate.MIN;
                } else if (c.argIs(j, "max")) {
                    aggregate = Aggregate.MAX;
                } else {
                    throw RedisError.syntax();
                }
                j++;
            } else if (!store && !cardinalityOnly && c.argIs(j, "withscores")) {
                withScores = true;
                j++;
            } else if (cardinalityOnly && remaining >= 2 && c.argIs(j, "limit")) {
                Long n = Args.tryParseLong(c.arg(j + 1));
                if (n == null || n < 0) {
                    throw new RedisError("ERR LIMIT can't be negative");
                }
                limit = n;
                j += 2;
            } else {
                throw RedisError.syntax();
            }
        }
        return new Inputs(keys, weights, aggregate, withScores, limit);
    }

    private static void compute(CommandCall c, SortedSetOperation op, boolean store) {
        Inputs in = parse(c, store ? 2 : 1, op, store, false);
        if (store) {
            c.reply().integer(c.types().sortedSets().combineInto(c.arg(1), in.keys, in.weights, in.aggregate, op));
            return;
        }
        List<Scored> result = c.types().sortedSets().combine(in.keys, in.weights, in.aggregate, op, 0);
        ScoredReplies.reply(c.reply(), result, in.withScores);
    }

    private static void interCard(CommandCall c) {
        Inputs in = parse(c, 1, SortedSetOperation.INTERSECTION, false, true);
        c.reply().integer(c.types().sortedSets().combine(in.keys, in.weights, in.aggregate,
                SortedSetOperation.INTERSECTION, in.limit).size());
    }
}
