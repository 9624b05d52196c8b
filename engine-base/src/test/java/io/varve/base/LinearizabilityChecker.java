package io.varve.base;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides whether a recorded history of operations on registers is linearizable: whether each operation can
 * be given a point between its invocation and its completion such that, taken in the order of those points,
 * every read returns the value of the latest write before it (or the initial value).
 *
 * <p>The search follows Wing and Gong: repeatedly pick an operation that may come next, apply it to the
 * register, and backtrack on a mismatch. An operation may come next when no other pending operation completed
 * before it was invoked. Lowe's refinement makes it practical: a configuration (the set of operations placed
 * so far and the register's value) that failed once is remembered and never explored again. Registers are
 * independent, so a history is checked per key, which keeps each search small. Shared test support: the
 * replication tests and the server's cluster tests record their histories for it.
 *
 * <p>A write whose outcome the client never learned (it failed or timed out: it may or may not have taken
 * effect) has completion {@link #UNKNOWN}: it may be placed anywhere after its invocation, or nowhere. A read
 * that failed returned nothing and is left out of the history.
 */
public final class LinearizabilityChecker {
    /** Completion time of a write whose outcome is unknown. */
    public static final long UNKNOWN = Long.MAX_VALUE;

    public enum Kind { READ, WRITE }

    /** One operation on one register: times from one monotonic clock; {@code value} read or written (null: absent). */
    public record Operation(Kind kind, String value, long invoke, long complete) {
        public Operation {
            Objects.requireNonNull(kind, "kind");
            if (complete < invoke) {
                throw new IllegalArgumentException("completes before it is invoked: " + invoke + " > " + complete);
            }
            if (kind == Kind.READ && complete == UNKNOWN) {
                throw new IllegalArgumentException("a read without a result cannot be checked; leave it out");
            }
        }

        public static Operation write(String value, long invoke, long complete) {
            return new Operation(Kind.WRITE, value, invoke, complete);
        }

        public static Operation read(String value, long invoke, long complete) {
            return new Operation(Kind.READ, value, invoke, complete);
        }

        public boolean definite() {
            return complete != UNKNOWN;
        }
    }

    private record Configuration(BitSet placed, String value) {
    }

    private final List<Operation> ops;
    private final Set<Configuration> failed = new HashSet<>();
    private final int definiteCount;

    private LinearizabilityChecker(List<Operation> history) {
        this.ops = new ArrayList<>(history);
        this.ops.sort(Comparator.comparingLong(Operation::invoke));
        this.definiteCount = (int) ops.stream().filter(Operation::definite).count();
    }

    /** Whether one register's history, starting from {@code initial}, is linearizable. */
    public static boolean isLinearizable(List<Operation> history, String initial) {
        return new LinearizabilityChecker(history).search(new BitSet(history.size()), 0, initial);
    }

    /** The keys whose histories are not linearizable (every register starts absent). */
    public static List<String> violations(Map<String, List<Operation>> historiesByKey) {
        List<String> bad = new ArrayList<>();
        for (Map.Entry<String, List<Operation>> e : new TreeMap<>(historiesByKey).entrySet()) {
            if (!isLinearizable(e.getValue(), null)) {
                bad.add(e.getKey());
            }
        }
        return bad;
    }

    private boolean search(BitSet placed, int definitePlaced, String value) {
        if (definitePlaced == definiteCount) {
            return true;
        }
        Configuration here = new Configuration(placed, value);
        if (failed.contains(here)) {
            return false;
        }
        // Whatever comes next must be invoked before the earliest completion among the pending operations.
        long deadline = UNKNOWN;
        for (int i = placed.nextClearBit(0); i < ops.size(); i = placed.nextClearBit(i + 1)) {
            deadline = Math.min(deadline, ops.get(i).complete());
        }
        for (int i = placed.nextClearBit(0); i < ops.size(); i = placed.nextClearBit(i + 1)) {
            Operation op = ops.get(i);
            if (op.invoke() > deadline) {
                break; // sorted by invocation: no later one qualifies either
            }
            if (op.kind() == Kind.READ && !Objects.equals(op.value(), value)) {
                continue;
            }
            BitSet next = (BitSet) placed.clone();
            next.set(i);
            String after = op.kind() == Kind.WRITE ? op.value() : value;
            if (search(next, definitePlaced + (op.definite() ? 1 : 0), after)) {
                return true;
            }
        }
        failed.add(new Configuration((BitSet) placed.clone(), value));
        return false;
    }
}
