package io.varve.base;

import static io.varve.base.LinearizabilityChecker.Operation.read;
import static io.varve.base.LinearizabilityChecker.Operation.write;
import static io.varve.base.LinearizabilityChecker.UNKNOWN;
import static io.varve.base.LinearizabilityChecker.isLinearizable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.LinearizabilityChecker.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The checker accepts histories known to be linearizable and rejects ones known not to be. */
class LinearizabilityCheckerTest {

    @Test
    void sequentialReadAfterWriteIsLinearizable() {
        assertTrue(isLinearizable(List.of(write("1", 0, 10), read("1", 11, 20)), null));
        assertTrue(isLinearizable(List.of(read(null, 0, 5), write("1", 6, 10), read("1", 11, 20)), null));
    }

    @Test
    void staleReadAfterACompletedWriteIsNot() {
        assertFalse(isLinearizable(List.of(write("1", 0, 10), read(null, 20, 30)), null));
        assertFalse(isLinearizable(List.of(write("1", 0, 10), write("2", 11, 15), read("1", 20, 30)), null));
    }

    @Test
    void aValueNeverWrittenIsNot() {
        assertFalse(isLinearizable(List.of(write("1", 0, 10), read("7", 5, 30)), null));
    }

    @Test
    void readsConcurrentWithAWriteMaySeeEitherValueButNeverGoBack() {
        assertTrue(isLinearizable(List.of(write("2", 0, 100), read(null, 10, 20), read("2", 30, 40)), null));
        assertTrue(isLinearizable(List.of(write("2", 0, 100), read("2", 10, 20), read("2", 30, 40)), null));
        // New value seen, then the old one by a later read: no order explains it.
        assertFalse(isLinearizable(List.of(write("2", 0, 100), read("2", 10, 20), read(null, 30, 40)), null));
    }

    @Test
    void overlappingWritesMayTakeEffectInEitherOrder() {
        List<Operation> h = List.of(write("a", 0, 50), write("b", 10, 60), read("a", 70, 80));
        assertTrue(isLinearizable(h, null));
        List<Operation> both = List.of(write("a", 0, 50), write("b", 10, 60), read("a", 70, 80),
                read("b", 90, 95));
        assertFalse(isLinearizable(both, null), "once both completed the value cannot change");
    }

    @Test
    void aWriteOfUnknownOutcomeMayOrMayNotHaveHappened() {
        assertTrue(isLinearizable(List.of(write("1", 0, 10), write("2", 20, UNKNOWN), read("2", 30, 40)), null));
        assertTrue(isLinearizable(List.of(write("1", 0, 10), write("2", 20, UNKNOWN), read("1", 30, 40)), null));
        assertFalse(isLinearizable(List.of(write("1", 0, 10), write("2", 20, UNKNOWN), read("2", 30, 40),
                read("1", 50, 60)), null), "once seen, it happened");
        assertFalse(isLinearizable(List.of(write("2", 20, UNKNOWN), read("2", 0, 10)), null),
                "seen before it was invoked");
    }

    @Test
    void violationsAreReportedPerKey() {
        Map<String, List<Operation>> histories = Map.of(
                "good", List.of(write("1", 0, 10), read("1", 11, 20)),
                "bad", List.of(write("1", 0, 10), read(null, 11, 20)));
        assertEquals(List.of("bad"), LinearizabilityChecker.violations(histories));
    }

    /**
     * Histories made from a sequential run of a register, each operation's interval stretched around its
     * point: always linearizable. Made strictly sequential and then given one stale read: never.
     */
    @Property(tries = 200)
    void generatedHistories(@ForAll long seed, @ForAll @IntRange(min = 2, max = 40) int length) {
        Random random = new Random(seed);
        List<Operation> overlapping = new ArrayList<>();
        List<Operation> sequential = new ArrayList<>();
        List<String> written = new ArrayList<>();
        String value = null;
        int staleCandidate = -1;
        for (int i = 0; i < length; i++) {
            long point = 100L * (i + 1);
            long invoke = point - random.nextInt(250);
            long complete = point + random.nextInt(250);
            boolean isWrite = random.nextBoolean();
            if (isWrite) {
                value = "v" + i;
                written.add(value);
                boolean unknown = random.nextInt(8) == 0;
                overlapping.add(write(value, invoke, unknown ? UNKNOWN : complete));
                sequential.add(write(value, point - 10, point + 10));
            } else {
                overlapping.add(read(value, invoke, complete));
                sequential.add(read(value, point - 10, point + 10));
                if (written.size() >= 2 && value.equals(written.getLast())) {
                    staleCandidate = i;
                }
            }
        }
        // An unknown write still took effect at its point; the checker may place it there.
        assertTrue(isLinearizable(overlapping, null), overlapping.toString());
        assertTrue(isLinearizable(sequential, null), sequential.toString());
        if (staleCandidate >= 0) {
            Operation r = sequential.get(staleCandidate);
            String stale = staleValue(sequential, staleCandidate);
            List<Operation> broken = new ArrayList<>(sequential);
            broken.set(staleCandidate, read(stale, r.invoke(), r.complete()));
            assertFalse(isLinearizable(broken, null), broken.toString());
        }
    }

    /** The value written before the latest write preceding {@code index}. */
    private static String staleValue(List<Operation> history, int index) {
        int writesSeen = 0;
        for (int i = index - 1; i >= 0; i--) {
            if (history.get(i).kind() == LinearizabilityChecker.Kind.WRITE && ++writesSeen == 2) {
                return history.get(i).value();
            }
        }
        throw new AssertionError("no earlier write");
    }
}
