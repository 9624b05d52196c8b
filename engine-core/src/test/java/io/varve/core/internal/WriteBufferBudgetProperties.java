package io.varve.core.internal;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared memtable budget against a model of its members: databases with mutable and immutable bytes, which
 * writes grow, a requested flush seals (mutable to immutable) and a finished flush empties. One writer, so a
 * write that finds the budget full is refused ({@code noSlowdown}) instead of waiting; a refused write is the
 * moment a blocking writer would wait. After every step:
 * <ul>
 *   <li>the budget's totals equal the sum of the members' bytes (a failed or closed member counts nothing);</li>
 *   <li>a write is refused exactly when the total is at or above the budget;</li>
 *   <li>the total never exceeds the budget plus one write (the one writer in flight);</li>
 *   <li>no deadlock: when a write is refused, some member has immutable bytes, i.e. a flush is under way
 *       whose end will lower the total and wake the writer.</li>
 * </ul>
 */
class WriteBufferBudgetProperties {

    private static final long BUDGET = 10_000;
    private static final int MAX_WRITE = 3_000;

    sealed interface Op permits Write, FlushDone, Fail, Close {
    }

    record Write(int member, int bytes) implements Op {
    }

    /** The member's flush thread wrote its immutable memtables out. */
    record FlushDone(int member) implements Op {
    }

    record Fail(int member) implements Op {
    }

    record Close(int member) implements Op {
    }

    /** A member database as the model sees it; the budget measures it through {@link #measure}. */
    static final class FakeDb implements WriteBufferBudget.Source {
        long mutable;
        long immutable;
        boolean failed;
        boolean closed;
        int flushRequests;

        @Override
        public boolean measure(long[] into) {
            into[0] = mutable;
            into[1] = mutable + immutable;
            return true;
        }

        @Override
        public boolean failed() {
            return failed;
        }

        @Override
        public void requestFlush() {
            flushRequests++;
            immutable += mutable;
            mutable = 0;
        }

        boolean counts() {
            return !failed && !closed;
        }
    }

    @Property(tries = 300)
    void budgetMatchesItsMembersAndNeverDeadlocks(@ForAll @IntRange(min = 1, max = 5) int members,
                                                   @ForAll("ops") List<Op> ops) {
        WriteBufferBudget budget = new WriteBufferBudget(BUDGET);
        List<FakeDb> dbs = new ArrayList<>();
        List<WriteBufferBudget.Member> shares = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            FakeDb db = new FakeDb();
            dbs.add(db);
            shares.add(budget.join(db));
        }
        for (int step = 0; step < ops.size(); step++) {
            Op op = ops.get(step);
            String at = "step " + step + " " + op + " of " + ops;
            switch (op) {
                case Write w -> {
                    int i = w.member() % members;
                    FakeDb db = dbs.get(i);
                    if (!db.counts()) {
                        continue;
                    }
                    boolean full = budget.usedBytes() >= BUDGET;
                    boolean admitted = shares.get(i).beforeWrite(true);
                    assertEquals(!full, admitted, at + ": refused exactly when full");
                    if (admitted) {
                        db.mutable += w.bytes();
                        shares.get(i).afterWrite();
                    } else {
                        long pending = dbs.stream().filter(FakeDb::counts).mapToLong(d -> d.immutable).sum();
                        assertTrue(pending > 0, at + ": refused with no flush under way to free memory");
                    }
                }
                case FlushDone f -> {
                    int i = f.member() % members;
                    dbs.get(i).immutable = 0;
                    shares.get(i).refresh();
                }
                case Fail f -> {
                    int i = f.member() % members;
                    dbs.get(i).failed = true;
                    shares.get(i).refresh();
                }
                case Close c -> {
                    int i = c.member() % members;
                    dbs.get(i).closed = true;
                    shares.get(i).close();
                }
            }
            long expectedAll = dbs.stream().filter(FakeDb::counts).mapToLong(d -> d.mutable + d.immutable).sum();
            long expectedMutable = dbs.stream().filter(FakeDb::counts).mapToLong(d -> d.mutable).sum();
            assertEquals(expectedAll, budget.usedBytes(), at + ": total");
            assertEquals(expectedMutable, budget.mutableBytes(), at + ": mutable total");
            assertTrue(budget.usedBytes() <= BUDGET + MAX_WRITE, at + ": over budget by more than one write");
        }
        int flushes = dbs.stream().mapToInt(d -> d.flushRequests).sum();
        assertEquals(flushes, budget.flushCount());
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> member = Arbitraries.integers().between(0, 4);
        Arbitrary<Op> write = Combinators.combine(member, Arbitraries.integers().between(1, MAX_WRITE))
                .as(Write::new);
        Arbitrary<Op> flushDone = member.map(FlushDone::new);
        Arbitrary<Op> fail = member.map(Fail::new);
        Arbitrary<Op> close = member.map(Close::new);
        return Arbitraries.frequencyOf(
                Tuple.of(12, write),
                Tuple.of(4, flushDone),
                Tuple.of(1, fail),
                Tuple.of(1, close)).list().ofMaxSize(120);
    }
}
