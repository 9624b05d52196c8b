package io.varve.server.store;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LockStripesTest {

    /** Two threads locking the same pair of keys in opposite argument order must not deadlock. */
    @Test
    void multiKeyLocksAreTakenInOneOrder() throws Exception {
        LockStripes stripes = new LockStripes(64);
        byte[] a = "alpha".getBytes();
        byte[] b = "beta".getBytes();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(2);
        Runnable ab = () -> {
            for (int i = 0; i < 20_000; i++) {
                try (LockStripes.Held h = stripes.lockAll(a, b, a)) {
                    maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    inside.decrementAndGet();
                }
            }
            done.countDown();
        };
        Runnable ba = () -> {
            for (int i = 0; i < 20_000; i++) {
                try (LockStripes.Held h = stripes.lockAll(b, a)) {
                    maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    inside.decrementAndGet();
                }
            }
            done.countDown();
        };
        Thread.ofVirtual().start(ab);
        Thread.ofVirtual().start(ba);
        assertTrue(done.await(60, TimeUnit.SECONDS), "deadlock");
        assertEquals(1, maxInside.get(), "mutual exclusion");
    }

    /** Duplicate keys lock their stripe once, and closing releases every stripe taken. */
    @Test
    void duplicatesAreLockedOnceAndAllReleased() throws Exception {
        LockStripes stripes = new LockStripes(64);
        byte[] a = "alpha".getBytes();
        byte[] b = "beta".getBytes();
        LockStripes.Held held = stripes.lockAll(a, b, a, b, a);
        Thread other = Thread.ofVirtual().start(() -> stripes.lock(a).close());
        while (other.getState() != Thread.State.WAITING) {
            assertTrue(other.isAlive(), "the stripe is held, so the other thread must wait");
            Thread.onSpinWait();
        }
        held.close();
        assertTrue(other.join(java.time.Duration.ofSeconds(30)), "released once closed");
        Thread again = Thread.ofVirtual().start(() -> stripes.lockAll(b, a).close());
        assertTrue(again.join(java.time.Duration.ofSeconds(30)), "nothing stays locked");
    }
}
