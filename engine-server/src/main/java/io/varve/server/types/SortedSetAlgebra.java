package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.server.store.Keyspace;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.SetStore;
import io.varve.server.store.WrongTypeException;
import io.varve.server.store.ZSetStore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * ZUNION, ZINTER and ZDIFF over inputs read with one {@link ReadOptions}. The result is built in memory (as
 * Redis builds it) in (score, member) order. An intersection walks the smallest input and looks each member
 * up in the others. Inputs may be sorted sets or plain sets (every member scoring 1), as in Redis; an absent
 * key is an empty input and any other type fails.
 */
final class SortedSetAlgebra {

    /** The inputs with their weights, and how a member's weighted scores combine. */
    record Request(List<byte[]> keys, double[] weights, Aggregate aggregate) {
    }

    private static final Comparator<Scored> ORDER = Comparator.comparingDouble(Scored::score)
            .thenComparing(Scored::member, Arrays::compareUnsigned);

    private final Keyspace keyspace;
    private final ZSetStore zsets;
    private final SetStore sets;

    SortedSetAlgebra(Keyspace keyspace, ZSetStore zsets, SetStore sets) {
        this.keyspace = keyspace;
        this.zsets = zsets;
        this.sets = sets;
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
    List<Scored> evaluate(ReadOptions at, Request in, SortedSetOperation operation, long limit) {
        Input[] inputs = new Input[in.keys().size()];
        for (int i = 0; i < inputs.length; i++) {
            Metadata meta = keyspace.lookup(at, in.keys().get(i));
            if (meta != null && meta.type() != RedisType.ZSET && meta.type() != RedisType.SET) {
                throw new WrongTypeException();
            }
            inputs[i] = new Input(zsets, sets, at, in.keys().get(i), meta);
        }
        List<Scored> out = switch (operation) {
            case UNION -> union(in, inputs);
            case INTERSECTION -> intersection(in, inputs, limit);
            case DIFFERENCE -> difference(inputs);
        };
        out.sort(ORDER);
        return out;
    }

    private static List<Scored> union(Request in, Input[] inputs) {
        Map<ByteBuffer, Double> scores = new HashMap<>();
        for (int i = 0; i < inputs.length; i++) {
            double weight = in.weights()[i];
            inputs[i].forEach((member, score) -> {
                scores.merge(ByteBuffer.wrap(member), weighted(weight, score), (a, b) -> in.aggregate().combine(a, b));
                return true;
            });
        }
        List<Scored> out = new ArrayList<>(scores.size());
        scores.forEach((m, s) -> out.add(new Scored(m.array(), s)));
        return out;
    }

    private static List<Scored> intersection(Request in, Input[] inputs, long limit) {
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
            found[first] = weighted(in.weights()[first], score);
            for (int i = 0; i < inputs.length; i++) {
                if (i != first) {
                    Double s = inputs[i].score(member);
                    if (s == null) {
                        return true;
                    }
                    found[i] = weighted(in.weights()[i], s);
                }
            }
            double total = found[0];
            for (int i = 1; i < found.length; i++) {
                total = in.aggregate().combine(total, found[i]);
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
}
