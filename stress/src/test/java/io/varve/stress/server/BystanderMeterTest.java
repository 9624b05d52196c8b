package io.varve.stress.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The no-starvation verdict: a ratio against the client's own figures without an attack. */
class BystanderMeterTest {
    private static final long MS = 1_000_000;
    /** 10,000 answers a second, p99 0.5 ms, worst 2 ms. */
    private static final BystanderMeter.Window ALONE = new BystanderMeter.Window(5_000, 500 * MS, MS / 2, 2 * MS);

    @Test
    void aSlowerClientWithinTheBoundsPasses() {
        assertNull(BystanderMeter.judge(ALONE, new BystanderMeter.Window(3_000, 1_000 * MS, 5 * MS, 900 * MS)));
    }

    @Test
    void aClientStalledForTheWholeAttackFails() {
        String problem = BystanderMeter.judge(ALONE, new BystanderMeter.Window(0, 1_000 * MS, 0, 1_000 * MS));
        assertNotNull(problem);
        assertTrue(problem.contains("starved"), problem);
        assertNotNull(BystanderMeter.judge(ALONE, new BystanderMeter.Window(50, 1_000 * MS, MS, 200 * MS)),
                "1/200 of the rate is starvation too");
    }

    @Test
    void aClientAnsweredFastButStalledOnceFails() {
        String problem = BystanderMeter.judge(ALONE, new BystanderMeter.Window(9_000, 1_000 * MS, MS, 1_500 * MS));
        assertNotNull(problem);
        assertTrue(problem.contains("waited too long"), problem);
    }

    @Test
    void theLatencyBoundGrowsWithTheBaselineP99() {
        BystanderMeter.Window slowAlone = new BystanderMeter.Window(100, 500 * MS, 100 * MS, 200 * MS);
        assertNull(BystanderMeter.judge(slowAlone, new BystanderMeter.Window(100, 1_000 * MS, 100 * MS, 1_900 * MS)));
        assertNotNull(BystanderMeter.judge(slowAlone, new BystanderMeter.Window(100, 1_000 * MS, 100 * MS,
                2_100 * MS)));
    }

    @Test
    void aBaselineWithTooFewAnswersIsNoBaseline() {
        String problem = BystanderMeter.judge(new BystanderMeter.Window(3, 500 * MS, MS, MS), ALONE);
        assertNotNull(problem);
        assertTrue(problem.contains("too few"), problem);
    }

    @Test
    void aRequestStillUnansweredAtTheEndCountsWithItsWaitSoFar() {
        BystanderMeter meter = new BystanderMeter();
        meter.begin();
        meter.sent();
        meter.answered();
        meter.sent(); // never answered: a stalled client
        long from = System.nanoTime();
        while (System.nanoTime() - from < 5 * MS) {
            Thread.onSpinWait(); // time passing, not synchronization: the window must see the wait
        }
        BystanderMeter.Window window = meter.end();
        assertEquals(1, window.answers());
        assertTrue(window.worstNanos() >= 5 * MS, window.toString());
        assertEquals(1, meter.totalAnswers());
    }
}
