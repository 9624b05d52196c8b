package io.varve.stress.enginekill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
            ops.add(random.nextInt(4) == 0 ? KillBatch.Op.delete(family, index) : KillBatch.Op.put(family, index));
        }
        ops.add(KillBatch.Op.put(family, KillSpace.MARKER));
        return new KillBatch(false, synced, ops);
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
}
