package io.varve.stress.enginekill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The I/O error campaign's crash oracle against a model that knows the global order of the writes: threads
 * write in a random interleaving, each write acknowledged before the next one starts (the model's log order),
 * some synced, a syncWal now and then. A crash keeps a prefix of that order holding every durable write; the
 * oracle must accept every such state and refuse one with a durable write lost or with a hole.
 */
class CrashPrefixHistoryProperties {
    private static final long CYCLE = 5;

    private record Write(int thread, int index, KillBatch batch) {
    }

    private static KillBatch batch(Random random, boolean synced) {
        List<KillBatch.Op> ops = new ArrayList<>();
        int family = random.nextInt(KillSpace.FAMILIES.size());
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            int index = random.nextInt(KillSpace.KEYS);
            ops.add(switch (random.nextInt(4)) {
                case 0 -> KillBatch.Op.delete(family, index);
                case 1 -> KillBatch.Op.merge(family, index % 4);
                default -> KillBatch.Op.put(family, index);
            });
        }
        ops.add(KillBatch.Op.put(family, KillSpace.MARKER));
        KillBatch.Route route = random.nextInt(8) == 0 ? KillBatch.Route.OPTIMISTIC_TRANSACTION
                : KillBatch.Route.BATCH;
        return new KillBatch(route, synced, ops);
    }

    /** The recovered state when the first {@code kept} writes of the global order survive. */
    private static long[][][] state(List<Write> order, int kept) {
        long[][][] state = new long[KillSpace.THREADS][][];
        for (int t = 0; t < KillSpace.THREADS; t++) {
            state[t] = KillSpace.emptyState();
        }
        for (int i = 0; i < kept; i++) {
            Write w = order.get(i);
            w.batch().applyTo(state[w.thread()], KillSpace.version(CYCLE, w.thread(), w.index()));
        }
        return state;
    }

    @Property(tries = 300)
    void acceptsEveryPrefixHoldingTheDurableWritesAndNothingElse(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 60) int writes) {
        Random random = new Random(seed);
        CrashPrefixHistory history = new CrashPrefixHistory();
        List<Write> order = new ArrayList<>();
        int[] next = new int[KillSpace.THREADS];
        int durable = 0; // the global prefix every crash must keep
        for (int i = 0; i < writes; i++) {
            if (random.nextInt(10) == 0) {
                Object token = history.starting();
                history.synced(token);
                durable = order.size();
            }
            int t = random.nextInt(KillSpace.THREADS);
            boolean synced = random.nextInt(6) == 0;
            KillBatch b = batch(random, synced);
            order.add(new Write(t, next[t], b));
            history.line("W " + t + " " + next[t] + " " + b.encode());
            history.line("A " + t + " " + next[t]);
            next[t]++;
            if (synced) {
                durable = order.size();
            }
        }
        long[][][] base = state(order, 0);
        for (int kept = 0; kept <= writes; kept++) {
            String verdict = history.judge(CYCLE, base, state(order, kept));
            if (kept >= durable) {
                assertNull(verdict, "kept the first " + kept + " of " + writes + " writes, " + durable + " durable");
                assertEquals(kept, history.recovered());
            } else {
                assertNotNull(verdict, "kept " + kept + " writes, lost durable ones");
            }
        }
        // A hole: one write of the kept prefix lost while a later write of another thread survives.
        if (writes >= 2) {
            Write last = order.getLast();
            int lost = -1;
            for (int i = order.size() - 2; i >= 0 && lost < 0; i--) {
                if (order.get(i).thread() != last.thread()) {
                    lost = i;
                }
            }
            if (lost >= 0) {
                List<Write> holed = new ArrayList<>(order);
                // Every later write of the lost one's thread goes too, so the thread alone still looks whole.
                Write first = order.get(lost);
                holed.removeIf(w -> w.thread() == first.thread() && w.index() >= first.index());
                assertNotNull(history.judge(CYCLE, base, state(holed, holed.size())),
                        "write " + lost + " lost while the last write, started after it was acknowledged, survived");
            }
        }
    }

    @Property(tries = 200)
    void refusesAKeptPrefixWithAMergeOperandLostOrDoubled(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 60) int writes, @ForAll boolean twice) {
        Random random = new Random(seed);
        CrashPrefixHistory history = new CrashPrefixHistory();
        List<Write> order = new ArrayList<>();
        int[] next = new int[KillSpace.THREADS];
        for (int i = 0; i < writes; i++) {
            int t = random.nextInt(KillSpace.THREADS);
            KillBatch b = batch(random, false); // nothing durable, so any prefix may be kept
            order.add(new Write(t, next[t], b));
            history.line("W " + t + " " + next[t] + " " + b.encode());
            history.line("A " + t + " " + next[t]);
            next[t]++;
        }
        int kept = writes / 2 + random.nextInt(writes - writes / 2 + 1);
        // A merge in the kept prefix whose key no later kept write of its thread puts or deletes.
        List<int[]> visible = new ArrayList<>();
        for (int i = 0; i < kept; i++) {
            List<KillBatch.Op> ops = order.get(i).batch().ops();
            for (int j = 0; j < ops.size(); j++) {
                if (ops.get(j).kind() == 'M' && !resetLater(order, kept, i, j)) {
                    visible.add(new int[] {i, j});
                }
            }
        }
        Assume.that(!visible.isEmpty());
        int[] pick = visible.get(random.nextInt(visible.size()));
        long[][][] wrong = state(order, 0);
        for (int i = 0; i < kept; i++) {
            Write w = order.get(i);
            for (int j = 0; j < w.batch().ops().size(); j++) {
                for (int n = i == pick[0] && j == pick[1] ? (twice ? 2 : 0) : 1; n > 0; n--) {
                    KillBatch.apply(w.batch().ops().get(j), wrong[w.thread()],
                            KillSpace.version(CYCLE, w.thread(), w.index()));
                }
            }
        }
        long[][][] base = state(order, 0);
        assertNull(history.judge(CYCLE, base, state(order, kept)));
        assertNotNull(history.judge(CYCLE, base, wrong), (twice ? "doubled" : "lost") + " a merge of write "
                + pick[0] + " of the " + kept + " kept");
    }

    private static boolean resetLater(List<Write> order, int kept, int i, int j) {
        Write w = order.get(i);
        KillBatch.Op merge = w.batch().ops().get(j);
        for (int later = i; later < kept; later++) {
            Write l = order.get(later);
            List<KillBatch.Op> ops = l.batch().ops();
            for (int o = later == i ? j + 1 : 0; o < ops.size(); o++) {
                KillBatch.Op op = ops.get(o);
                if (l.thread() == w.thread() && op.kind() != 'M' && op.family() == merge.family()
                        && op.index() == merge.index()) {
                    return true;
                }
            }
        }
        return false;
    }
}
