package io.varve.stress.enginekill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The engine kill campaign's oracle, against a model that replays the child's report itself: it accepts the
 * state after every acknowledged write with or without the write in flight, and refuses a lost acknowledged
 * write, a half-applied write in flight, a merge operand lost, applied twice or out of order, and bytes no
 * write produced.
 */
class KillHistoryProperties {
    private static final long CYCLE = 3;

    /** A random report of one thread: {@code writes} batches started, the last one maybe not acknowledged. */
    private static List<KillBatch> batches(Random random, int writes) {
        List<KillBatch> batches = new ArrayList<>();
        for (int i = 0; i < writes; i++) {
            List<KillBatch.Op> ops = new ArrayList<>();
            int family = random.nextInt(KillSpace.FAMILIES.size());
            if (random.nextInt(4) == 0) {
                int from = random.nextInt(KillSpace.KEYS);
                ops.add(KillBatch.Op.deleteRange(family, from, Math.min(KillSpace.KEYS, from + random.nextInt(20) + 1)));
            }
            for (int n = 1 + random.nextInt(4); n > 0; n--) {
                int index = random.nextInt(KillSpace.KEYS);
                ops.add(switch (random.nextInt(4)) {
                    case 0 -> KillBatch.Op.delete(family, index);
                    // A few keys, so that chains of operands grow and some end under a put or delete.
                    case 1 -> KillBatch.Op.merge(family, index % 4);
                    default -> KillBatch.Op.put(family, index);
                });
            }
            ops.add(KillBatch.Op.put(family, KillSpace.MARKER));
            KillBatch.Route route = KillBatch.Route.values()[random.nextInt(KillBatch.Route.values().length)];
            batches.add(new KillBatch(route, random.nextBoolean(), ops));
        }
        return batches;
    }

    private static KillHistory report(List<KillBatch> batches, int thread, int acknowledged) {
        KillHistory h = new KillHistory();
        h.line("READY");
        for (int i = 0; i < batches.size(); i++) {
            h.line("W " + thread + " " + i + " " + batches.get(i).encode());
            if (i < acknowledged) {
                h.line("A " + thread + " " + i);
            }
        }
        return h;
    }

    private static long[][] after(long[][] base, List<KillBatch> batches, int thread, int n) {
        long[][] state = KillSpace.copy(base);
        for (int i = 0; i < n; i++) {
            batches.get(i).applyTo(state, KillSpace.version(CYCLE, thread, i));
        }
        return state;
    }

    @Property(tries = 200)
    void acceptsExactlyTheAcknowledgedStateWithOrWithoutTheWriteInFlight(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 40) int writes, @ForAll boolean inFlight) {
        Random random = new Random(seed);
        int thread = random.nextInt(KillSpace.THREADS);
        List<KillBatch> batches = batches(random, writes);
        int acknowledged = inFlight ? writes - 1 : writes;
        KillHistory h = report(batches, thread, acknowledged);
        assertNull(h.protocolError());
        // The state an earlier cycle left: its batches carry that cycle's versions.
        long[][] base = KillSpace.emptyState();
        List<KillBatch> earlier = batches(new Random(seed + 1), 5);
        for (int i = 0; i < earlier.size(); i++) {
            earlier.get(i).applyTo(base, KillSpace.version(CYCLE - 1, thread, i));
        }
        assertTrue(h.judge(thread, CYCLE, base, after(base, batches, thread, acknowledged)).ok());
        KillHistory.ThreadVerdict all = h.judge(thread, CYCLE, base, after(base, batches, thread, writes));
        assertTrue(all.ok());
        assertEquals(inFlight, all.inFlightRecovered());
        if (acknowledged > 0) {
            assertFalse(h.judge(thread, CYCLE, base, after(base, batches, thread, acknowledged - 1)).ok(),
                    "an acknowledged write lost");
        }
        if (inFlight) {
            // Half of the write in flight: its marker without the rest, or the rest without its marker.
            long[][] half = after(base, batches, thread, acknowledged);
            KillBatch last = batches.getLast();
            KillBatch.Op marker = last.ops().getLast();
            half[marker.family()][KillSpace.MARKER] = KillSpace.version(CYCLE, thread, writes - 1);
            boolean markerOnly = !Arrays.deepEquals(half, after(base, batches, thread, writes));
            if (markerOnly) {
                assertFalse(h.judge(thread, CYCLE, base, half).ok(), "a write in flight applied in part");
            }
        }
    }

    @Property(tries = 200)
    void aCheckpointMayHoldAnyPrefixBetweenItsStartAndItsEndAndNoOther(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 30) int writes) {
        Random random = new Random(seed);
        int thread = random.nextInt(KillSpace.THREADS);
        List<KillBatch> batches = batches(random, writes);
        int floor = random.nextInt(writes + 1);
        int ceiling = floor + random.nextInt(writes - floor + 1);
        KillHistory h = new KillHistory();
        h.line("READY");
        for (int i = 0; i <= writes; i++) {
            if (i == floor) {
                h.line("C 1 start");
            }
            if (i == ceiling) {
                h.line("C 1 done");
            }
            if (i < writes) {
                h.line("W " + thread + " " + i + " " + batches.get(i).encode());
                h.line("A " + thread + " " + i);
            }
        }
        assertNull(h.protocolError());
        assertEquals(1, h.lastCheckpoint());
        long[][] base = KillSpace.emptyState();
        List<long[][]> allowed = new ArrayList<>();
        for (int j = floor; j <= ceiling; j++) {
            allowed.add(after(base, batches, thread, j));
            assertNull(h.judgeCheckpoint(thread, CYCLE, base, allowed.getLast()), "prefix " + j);
        }
        for (int j : new int[] {floor - 1, ceiling + 1}) {
            if (j >= 0 && j <= writes) {
                long[][] outside = after(base, batches, thread, j);
                if (allowed.stream().noneMatch(a -> Arrays.deepEquals(a, outside))) {
                    assertNotNull(h.judgeCheckpoint(thread, CYCLE, base, outside), "prefix " + j);
                }
            }
        }
    }

    @Property(tries = 200)
    void refusesAMergeOperandLostOrAppliedTwice(@ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int writes,
            @ForAll boolean twice) {
        Random random = new Random(seed);
        int thread = random.nextInt(KillSpace.THREADS);
        List<KillBatch> batches = batches(random, writes);
        // The merges whose key nothing later puts, deletes or covers with a range: their loss must show.
        List<int[]> visible = new ArrayList<>();
        for (int i = 0; i < writes; i++) {
            List<KillBatch.Op> ops = batches.get(i).ops();
            for (int j = 0; j < ops.size(); j++) {
                if (ops.get(j).kind() == 'M' && !resetLater(batches, i, j)) {
                    visible.add(new int[] {i, j});
                }
            }
        }
        Assume.that(!visible.isEmpty());
        int[] pick = visible.get(random.nextInt(visible.size()));
        long[][] wrong = KillSpace.emptyState();
        for (int i = 0; i < writes; i++) {
            List<KillBatch.Op> ops = batches.get(i).ops();
            for (int j = 0; j < ops.size(); j++) {
                int times = i == pick[0] && j == pick[1] ? (twice ? 2 : 0) : 1;
                for (int n = 0; n < times; n++) {
                    KillBatch.apply(ops.get(j), wrong, KillSpace.version(CYCLE, thread, i));
                }
            }
        }
        KillHistory h = report(batches, thread, writes);
        long[][] base = KillSpace.emptyState();
        assertTrue(h.judge(thread, CYCLE, base, after(base, batches, thread, writes)).ok());
        assertFalse(h.judge(thread, CYCLE, base, wrong).ok(), (twice ? "an operand applied twice" : "an operand lost")
                + ": write " + pick[0] + ", operation " + pick[1]);
    }

    /** Whether an operation after operation {@code j} of write {@code i} puts, deletes or range-deletes its key. */
    private static boolean resetLater(List<KillBatch> batches, int i, int j) {
        KillBatch.Op merge = batches.get(i).ops().get(j);
        for (int w = i; w < batches.size(); w++) {
            List<KillBatch.Op> ops = batches.get(w).ops();
            for (int o = w == i ? j + 1 : 0; o < ops.size(); o++) {
                KillBatch.Op op = ops.get(o);
                boolean covers = op.kind() == 'R' ? merge.index() >= op.index() && merge.index() < op.end()
                        : op.kind() != 'M' && op.index() == merge.index();
                if (op.family() == merge.family() && covers) {
                    return true;
                }
            }
        }
        return false;
    }

    @Test
    void refusesMergeOperandsLostDuplicatedOrReordered() {
        List<KillBatch> batches = List.of(KillBatch.decode("B 0 P.0.1,P.0.300"), KillBatch.decode("O 0 M.0.1,P.0.300"),
                KillBatch.decode("P 1 M.0.1,M.0.1,P.0.300"));
        KillHistory h = report(batches, 0, 3);
        assertNull(h.protocolError());
        long[][] base = KillSpace.emptyState();
        long[][] right = after(base, batches, 0, 3);
        assertTrue(h.judge(0, CYCLE, base, right).ok());
        long v0 = KillSpace.version(CYCLE, 0, 0);
        long v1 = KillSpace.version(CYCLE, 0, 1);
        long v2 = KillSpace.version(CYCLE, 0, 2);
        assertEquals(KillMerge.chain(KillMerge.chain(KillMerge.chain(v0, v1), v2), v2), right[0][1]);
        for (long wrong : new long[] {KillMerge.chain(KillMerge.chain(v0, v1), v2),
                KillMerge.chain(KillMerge.chain(KillMerge.chain(KillMerge.chain(v0, v1), v1), v2), v2),
                KillMerge.chain(KillMerge.chain(KillMerge.chain(v0, v2), v1), v2),
                KillMerge.chain(KillMerge.chain(KillMerge.chain(KillSpace.ABSENT, v1), v2), v2)}) {
            long[][] state = KillSpace.copy(right);
            state[0][1] = wrong;
            assertFalse(h.judge(0, CYCLE, base, state).ok(), Long.toHexString(wrong));
        }
    }

    @Test
    void aWriteReportedOutOfOrderIsAProtocolError() {
        KillHistory h = new KillHistory();
        h.line("W 0 0 B 0 P.0.1,P.0.300");
        h.line("W 0 1 B 0 P.0.2,P.0.300");
        assertNotNull(h.protocolError(), "a second write started before the first returned");
    }

    @Test
    void valuesNameTheirVersionAndAnyChangeIsCaught() {
        byte[] v = KillSpace.value(2, 1, 17, KillSpace.version(CYCLE, 2, 9));
        assertEquals(KillSpace.version(CYCLE, 2, 9), KillSpace.versionOf(2, 1, 17, v));
        assertNull(KillSpace.versionOf(2, 1, 18, v), "read at another key");
        assertNull(KillSpace.versionOf(2, 2, 17, v), "read in another family");
        v[v.length - 1] ^= 1;
        assertNull(KillSpace.versionOf(2, 1, 17, v));
        assertEquals(List.of(3, KillSpace.MARKER), List.of(KillSpace.parseKey(KillSpace.key(3, KillSpace.MARKER))[0],
                KillSpace.parseKey(KillSpace.key(3, KillSpace.MARKER))[1]));
    }
}
