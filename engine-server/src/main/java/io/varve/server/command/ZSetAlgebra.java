package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.server.resp.RedisError;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.SetStore;
import io.varve.server.store.ZSetStore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms, and ZINTERCARD, with Redis's argument order, WEIGHTS and
 * AGGREGATE. The result is built in memory (as Redis builds it) and replied, or stored, in (score, member)
 * order. An intersection walks the smallest input and looks each member up in the others. Inputs may be
 * sorted sets or plain sets (every member scoring 1), as in Redis.
 */
final class ZSetAlgebra {

    private enum Op { UNION, INTER, DIFF }

    private enum Aggregate { SUM, MIN, MAX }

    private static final Comparator<Scored> ORDER = Comparator.comparingDouble(Scored::score)
            .thenComparing(Scored::member, Arrays::compareUnsigned);

    private ZSetAlgebra() {
    }

    /** The destination, then a counted list of sources. */
    private static final List<KeySpec> STORE_KEYS = List.of(KeySpec.single(1), KeySpec.counted(2));

    static void register(CommandTable.Builder b) {
        b.add("zunion", -3, "readonly", List.of(KeySpec.counted(1)), c -> compute(c, Op.UNION, false));
        b.add("zinter", -3, "readonly", List.of(KeySpec.counted(1)), c -> compute(c, Op.INTER, false));
        b.add("zdiff", -3, "readonly", List.of(KeySpec.counted(1)), c -> compute(c, Op.DIFF, false));
        b.add("zunionstore", -4, "write denyoom", STORE_KEYS, c -> compute(c, Op.UNION, true));
        b.add("zinterstore", -4, "write denyoom", STORE_KEYS, c -> compute(c, Op.INTER, true));
        b.add("zdiffstore", -4, "write denyoom", STORE_KEYS, c -> compute(c, Op.DIFF, true));
        b.add("zintercard", -3, "readonly", List.of(KeySpec.counted(1)), ZSetAlgebra::interCard);
    }

    /** The parsed arguments: input keys and their weights, the aggregate, WITHSCORES, LIMIT. */
    private record Inputs(byte[][] keys, double[] weights, Aggregate aggregate, boolean withScores, long limit) {
    }

    private static Inputs parse(CommandCall c, int numKeysIndex, Op op, boolean store, boolean cardinalityOnly) {
        long numKeys = c.argLong(numKeysIndex);
        if (numKeys < 1) {
            throw new RedisError("ERR at least 1 input key is needed for '" + c.spec().name() + "' command");
        }
        if (numKeys > c.argCount() - numKeysIndex - 1) {
            throw RedisError.syntax();
        }
        byte[][] keys = Arrays.copyOfRange(c.args(), numKeysIndex + 1, numKeysIndex + 1 + (int) numKeys);
        double[] weights = new double[keys.length];
        Arrays.fill(weights, 1);
        Aggregate aggregate = Aggregate.SUM;
        boolean withScores = false;
        long limit = 0;
        int j = numKeysIndex + 1 + keys.length;
        while (j < c.argCount()) {
            int remaining = c.argCount() - j;
            if (op != Op.DIFF && !cardinalityOnly && remaining >= keys.length + 1 && c.argIs(j, "weights")) {
                j++;
                for (int i = 0; i < keys.length; i++, j++) {
                    try {
                        weights[i] = Args.parseDouble(c.arg(j));
                    } catch (RedisError e) {
                        throw new RedisError("ERR weight value is not a float");
                    }
                }
            } else if (op != Op.DIFF && !cardinalityOnly && remaining >= 2 && c.argIs(j, "aggregate")) {
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
                if (n == null) {
                    throw RedisError.notInteger();
                }
                if (n < 0) {
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

    private static void compute(CommandCall c, Op op, boolean store) {
        Keyspace ks = c.keyspace();
        Inputs in = parse(c, store ? 2 : 1, op, store, false);
        if (!store) {
            List<Scored> result;
            try (Snapshot snapshot = ks.snapshot()) {
                result = evaluate(c, ReadOptions.at(snapshot), in, op, 0);
            }
            Scored.reply(c.reply(), result, in.withScores);
            return;
        }
        byte[][] locked = Arrays.copyOf(in.keys, in.keys.length + 1);
        locked[in.keys.length] = c.arg(1);
        try (LockStripes.Held held = ks.lockAll(locked)) {
            List<Scored> result = evaluate(c, ReadOptions.DEFAULT, in, op, 0);
            ZRangeCommands.storeResult(c, c.arg(1), result);
            c.reply().integer(result.size());
        }
        ks.blocking().signal(c.arg(1));
    }

    private static void interCard(CommandCall c) {
        Inputs in = parse(c, 1, Op.INTER, false, true);
        try (Snapshot snapshot = c.keyspace().snapshot()) {
            c.reply().integer(evaluate(c, ReadOptions.at(snapshot), in, Op.INTER, in.limit).size());
        }
    }

    /**
     * One input of the algebra: a sorted set, or a plain set whose members all score 1 (Redis accepts both);
     * an absent key is an empty input.
     */
    private record Input(ZSetStore zsets, SetStore sets, ReadOptions at, byte[] key, Metadata meta) {

        long size() {
            return meta == null ? 0 : meta.size();
        }

        void forEach(ZSetStore.Visitor visitor) {
            if (meta == null) {
                return;
            }
            if (meta.type() == RedisType.ZSET) {
                zsets.scanAll(at, key, meta, false, visitor);
            } else {
                sets.forEach(at, key, meta, null, member -> visitor.visit(member, 1));
            }
        }

        Double score(byte[] member) {
            if (meta == null) {
                return null;
            }
            if (meta.type() == RedisType.ZSET) {
                return zsets.score(at, key, meta, member);
            }
            return sets.contains(at, key, meta, member) ? 1.0 : null;
        }
    }

    /** The result in (score, member) order; for an intersection at most {@code limit} members (0: all). */
    private static List<Scored> evaluate(CommandCall c, ReadOptions at, Inputs in, Op op, long limit) {
        Keyspace ks = c.keyspace();
        ZSetStore zsets = ZSetCommands.store(c);
        SetStore sets = new SetStore(ks);
        Input[] inputs = new Input[in.keys.length];
        for (int i = 0; i < inputs.length; i++) {
            Metadata meta = ks.lookup(at, in.keys[i]);
            if (meta != null && meta.type() != RedisType.ZSET && meta.type() != RedisType.SET) {
                throw RedisError.wrongType();
            }
            inputs[i] = new Input(zsets, sets, at, in.keys[i], meta);
        }
        List<Scored> out = switch (op) {
            case UNION -> union(in, inputs);
            case INTER -> intersection(in, inputs, limit);
            case DIFF -> difference(inputs);
        };
        out.sort(ORDER);
        return out;
    }

    private static List<Scored> union(Inputs in, Input[] inputs) {
        Map<ByteBuffer, Double> scores = new HashMap<>();
        for (int i = 0; i < inputs.length; i++) {
            double weight = in.weights[i];
            inputs[i].forEach((member, score) -> {
                scores.merge(ByteBuffer.wrap(member), weighted(weight, score), (a, b) -> aggregate(in.aggregate, a, b));
                return true;
            });
        }
        List<Scored> out = new ArrayList<>(scores.size());
        scores.forEach((m, s) -> out.add(new Scored(m.array(), s)));
        return out;
    }

    private static List<Scored> intersection(Inputs in, Input[] inputs, long limit) {
        int smallest = 0;
        for (int i = 0; i < inputs.length; i++) {
            if (inputs[i].meta == null) {
                return new ArrayList<>();
            }
            if (inputs[i].size() < inputs[smallest].size()) {
                smallest = i;
            }
        }
        int first = smallest;
        List<Scored> out = new ArrayList<>();
        inputs[first].forEach((member, score) -> {
            // Aggregate in input order, as Redis does, so MIN/MAX/SUM see the same operand order.
            double[] found = new double[inputs.length];
            found[first] = weighted(in.weights[first], score);
            for (int i = 0; i < inputs.length; i++) {
                if (i != first) {
                    Double s = inputs[i].score(member);
                    if (s == null) {
                        return true;
                    }
                    found[i] = weighted(in.weights[i], s);
                }
            }
            double total = found[0];
            for (int i = 1; i < found.length; i++) {
                total = aggregate(in.aggregate, total, found[i]);
            }
            out.add(new Scored(member, total));
            return limit == 0 || out.size() < limit;
        });
        return out;
    }

    private static List<Scored> difference(Input[] inputs) {
        List<Scored> out = new ArrayList<>();
        inputs[0].forEach((member, score) -> {
            for (int i = 1; i < inputs.length; i++) {
                if (inputs[i].score(member) != null) {
                    return true;
                }
            }
            out.add(new Scored(member, score));
            return true;
        });
        return out;
    }

    /** weight × score, with Redis's convention that 0 × ±inf (NaN) is 0. */
    private static double weighted(double weight, double score) {
        double w = weight * score;
        return Double.isNaN(w) ? 0 : w;
    }

    private static double aggregate(Aggregate how, double a, double b) {
        return switch (how) {
            case SUM -> {
                double sum = a + b;
                yield Double.isNaN(sum) ? 0 : sum; // +inf + -inf
            }
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }
}
