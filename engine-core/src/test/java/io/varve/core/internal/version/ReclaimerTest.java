package io.varve.core.internal.version;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reclaimer runs every task in order, never misses a wake-up, and is not woken per task while busy. */
class ReclaimerTest {

    private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

    @Test
    void submissionsWhileItLingersDoNotWakeItAndDrainRunsThemInOrder() throws InterruptedException {
        Reclaimer reclaimer = new Reclaimer("test-reclaimer", AN_HOUR);
        try {
            CountDownLatch first = new CountDownLatch(1);
            reclaimer.submit(first::countDown);
            assertTrue(first.await(10, TimeUnit.SECONDS), "the first task runs");
            long wakeUpsBefore = reclaimer.wakeUps();

            // Having just run a task, the thread lingers (an hour here): these only enqueue.
            List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 100; i++) {
                int n = i;
                reclaimer.submit(() -> ran.add(n));
            }
            // At most a spurious return from the timed park could let it go idle once in between.
            assertTrue(reclaimer.wakeUps() - wakeUpsBefore <= 1,
                    "100 submissions woke it " + (reclaimer.wakeUps() - wakeUpsBefore) + " times");

            reclaimer.drain();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                expected.add(i);
            }
            assertEquals(expected, ran);
        } finally {
            reclaimer.close();
        }
    }

    @Test
    void anIdleReclaimerNeverMissesASubmission() throws InterruptedException {
        for (long linger : new long[] {0, Reclaimer.DEFAULT_LINGER}) {
            Reclaimer reclaimer = new Reclaimer("test-reclaimer", linger);
            try {
                // Each task is submitted as the thread goes (or has gone) idle: a lost wake-up hangs here.
                for (int i = 0; i < 300; i++) {
                    CountDownLatch done = new CountDownLatch(1);
                    reclaimer.submit(done::countDown);
                    assertTrue(done.await(10, TimeUnit.SECONDS), "task " + i + " with linger " + linger + " never ran");
                }
            } finally {
                reclaimer.close();
            }
        }
    }

    @Test
    void drainWaitsForTasksSubmittedByTasksAndCloseRunsLateOnesInline() {
        Reclaimer reclaimer = new Reclaimer("test-reclaimer", AN_HOUR);
        AtomicInteger count = new AtomicInteger();
        reclaimer.submit(() -> reclaimer.submit(() -> reclaimer.submit(count::incrementAndGet)));
        reclaimer.drain();
        assertEquals(1, count.get());

        reclaimer.submit(count::incrementAndGet);
        reclaimer.close();
        assertEquals(2, count.get(), "close runs what was queued");
        reclaimer.submit(count::incrementAndGet);
        assertEquals(3, count.get(), "after close, submit runs the task on the caller");
    }
}
