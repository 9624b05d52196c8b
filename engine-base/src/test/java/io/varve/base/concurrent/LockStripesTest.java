package io.varve.base.concurrent;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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

    /** Starts a thread that locks {@code key}'s stripe and unlocks it; returns once it waits for the stripe. */
    private static Thread awaitBlockedLocking(LockStripes stripes, byte[] key) {
        Thread other = Thread.ofVirtual().start(() -> stripes.lock(key).close());
        while (other.getState() != Thread.State.WAITING) {
            assertTrue(other.isAlive(), "the stripe is held, so the other thread must wait");
            Thread.onSpinWait();
        }
        return other;
    }

    /** Duplicate keys lock their stripe once, and closing releases every stripe taken. */
    @Test
    void duplicatesAreLockedOnceAndAllReleased() throws Exception {
        LockStripes stripes = new LockStripes(64);
        byte[] a = "alpha".getBytes();
        byte[] b = "beta".getBytes();
        LockStripes.Held held = stripes.lockAll(a, b, a, b, a);
        Thread other = awaitBlockedLocking(stripes, a);
        held.close();
        assertTrue(other.join(java.time.Duration.ofSeconds(30)), "released once closed");
        Thread again = Thread.ofVirtual().start(() -> stripes.lockAll(b, a).close());
        assertTrue(again.join(java.time.Duration.ofSeconds(30)), "nothing stays locked");
    }

    /**
     * tryLockAll takes every stripe or none: with one key's stripe held elsewhere it returns null and leaves
     * the other keys' stripes free; once that stripe is free it takes them all, and closing frees them all.
     */
    @Test
    void tryLockAllTakesEveryStripeOrNone() throws Exception {
        LockStripes stripes = new LockStripes(64);
        byte[] a = "alpha".getBytes();
        byte[] b = "beta".getBytes();
        assertNotEquals(stripes.stripeOf(a), stripes.stripeOf(b), "the test needs two stripes");
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            try (LockStripes.Held h = stripes.lock(b)) {
                holding.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        holding.await();
        assertNull(stripes.tryLockAll(a, b), "b's stripe is held elsewhere");
        assertNull(stripes.tryLockAll(b), "b's stripe is held elsewhere");
        Thread other = Thread.ofPlatform().start(() -> stripes.lock(a).close());
        assertTrue(other.join(java.time.Duration.ofSeconds(30)), "a failed tryLockAll left a's stripe free");
        release.countDown();
        holder.join();

        LockStripes.Held both = stripes.tryLockAll(b, a, b);
        assertNotNull(both, "both stripes are free");
        Thread blocked = awaitBlockedLocking(stripes, a);
        both.close();
        assertTrue(blocked.join(java.time.Duration.ofSeconds(30)), "closing released a's stripe");
        LockStripes.Held again = stripes.tryLockAll(a, b);
        assertNotNull(again, "closing released every stripe");
        again.close();
    }
}
