package io.varve.raftlog;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;

/**
 * Generated test workloads. Operations are generated as specs relative to the state they meet (append after
 * the last index, overwrite a few back, leave a gap...), and resolved into concrete {@link Op}s against the
 * model when run, so that shrinking a failing sequence still produces meaningful operations.
 */
final class Workload {
    static final int GROUPS = 6;
    static final List<byte[]> KEYS = List.of(bytes("hs"), bytes("apply"), bytes("k2"), bytes("k3"));

    private Workload() {
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    interface Action {
    }

    record Write(List<OpSpec> ops, boolean sync) implements Action {
    }

    record Purge() implements Action {
    }

    record Reopen() implements Action {
    }

    sealed interface OpSpec {
    }

    /** mode 0: after the last index; 1: overwrite {@code back} entries; 2: leave a gap; 3: restart far away. */
    record AppendSpec(int group, int mode, int back, int count, int size, int salt) implements OpSpec {
    }

    record PutSpec(int group, int key, int salt) implements OpSpec {
    }

    record DeleteSpec(int group, int key) implements OpSpec {
    }

    record CompactSpec(int group, int delta) implements OpSpec {
    }

    record CleanSpec(int group) implements OpSpec {
    }

    static Arbitrary<OpSpec> opSpecs() {
        Arbitrary<Integer> group = Arbitraries.integers().between(0, GROUPS - 1);
        Arbitrary<Integer> size = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.integers().between(0, 400).withDistribution(RandomDistribution.uniform())),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1500, 9000)));
        Arbitrary<OpSpec> append = Combinators.combine(group,
                Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(12, Arbitraries.just(0)),
                        net.jqwik.api.Tuple.of(4, Arbitraries.just(1)), net.jqwik.api.Tuple.of(1, Arbitraries.just(2)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(3))),
                Arbitraries.integers().between(0, 6), Arbitraries.integers().between(1, 16), size,
                Arbitraries.integers()).as(AppendSpec::new);
        Arbitrary<OpSpec> put = Combinators.combine(group, Arbitraries.integers().between(0, KEYS.size() - 1),
                Arbitraries.integers()).as(PutSpec::new);
        Arbitrary<OpSpec> delete = Combinators.combine(group, Arbitraries.integers().between(0, KEYS.size() - 1))
                .as(DeleteSpec::new);
        Arbitrary<OpSpec> compact = Combinators.combine(group, Arbitraries.integers().between(-2, 30))
                .as(CompactSpec::new);
        Arbitrary<OpSpec> clean = group.map(CleanSpec::new);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(14, append), net.jqwik.api.Tuple.of(4, put),
                net.jqwik.api.Tuple.of(1, delete), net.jqwik.api.Tuple.of(3, compact),
                net.jqwik.api.Tuple.of(1, clean));
    }

    static Arbitrary<Action> actions(int purgeWeight, int reopenWeight) {
        Arbitrary<Action> write = Combinators.combine(opSpecs().list().ofMinSize(1).ofMaxSize(6),
                Arbitraries.of(true, false)).as(Write::new);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(30, write),
                net.jqwik.api.Tuple.of(purgeWeight, Arbitraries.just(new Purge())),
                net.jqwik.api.Tuple.of(reopenWeight, Arbitraries.just(new Reopen())));
    }

    /** Turns specs into concrete operations against the state they will meet (earlier ops of the batch included). */
    static List<Op> resolve(List<OpSpec> specs, RefModel model) {
        RefModel scratch = model.copy();
        List<Op> ops = new ArrayList<>();
        for (OpSpec spec : specs) {
            Op op = switch (spec) {
                case AppendSpec a -> {
                    long last = scratch.lastIndex(a.group());
                    long first = switch (a.mode()) {
                        case 0 -> last < 0 ? 1 : last + 1;
                        case 1 -> Math.max(0, (last < 0 ? 1 : last + 1) - a.back());
                        case 2 -> (last < 0 ? 1 : last + 1) + 1 + a.back();
                        default -> (last < 0 ? 1 : last) + 1000;
                    };
                    List<byte[]> entries = new ArrayList<>();
                    for (int i = 0; i < a.count(); i++) {
                        entries.add(payload(a.salt(), first + i, a.size() + i % 3));
                    }
                    yield new Op.Append(a.group(), first, entries);
                }
                case PutSpec p -> new Op.Put(p.group(), KEYS.get(p.key()), payload(p.salt(), 0, 8 + Math.floorMod(p.salt(), 40)));
                case DeleteSpec d -> new Op.Delete(d.group(), KEYS.get(d.key()));
                case CompactSpec c -> {
                    long first = scratch.firstIndex(c.group());
                    yield new Op.Compact(c.group(), Math.max(0, (first < 0 ? 0 : first) + c.delta()));
                }
                case CleanSpec c -> new Op.Clean(c.group());
            };
            ops.add(op);
            try {
                scratch.apply(List.of(op));
            } catch (IllegalArgumentException gapWillBeRejected) {
                // keep resolving; the whole batch is expected to be refused
            }
        }
        return ops;
    }

    static byte[] payload(int salt, long index, int size) {
        byte[] b = new byte[size];
        Random r = new Random(salt * 1_000_003L + index);
        // Half random, half repetitive, so compression both helps and does not.
        for (int i = 0; i < size; i++) {
            b[i] = i % 2 == 0 ? (byte) r.nextInt() : (byte) (i % 7);
        }
        return b;
    }
}
