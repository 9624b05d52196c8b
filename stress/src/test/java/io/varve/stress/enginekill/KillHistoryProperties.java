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
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The engine kill campaign's oracle, against a model that replays the child's report itself: it accepts the
 * state after every acknowledged write with or without the write in flight, and refuses a lost acknowledged
 * write, a half-applied write in flight, and bytes no write produced.
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
                ops.add(random.nextInt(4) == 0 ? KillBatch.Op.delete(family, index) : KillBatch.Op.put(family, index));
            }
            ops.add(KillBatch.Op.put(family, KillSpace.MARKER));
            batches.add(new KillBatch(random.nextInt(10) == 0, random.nextBoolean(), ops));
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
