package io.varve.core.ingest;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class RangeLatchTest {

    @Test
    void overlappingHoldersExcludeEachOtherAndNobodyDeadlocks() throws Exception {
        int threads = 6;
        int rounds = 3_000;
        AtomicIntegerArray owner = new AtomicIntegerArray(32);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        RangeLatch latch = new RangeLatch();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 1; t <= threads; t++) {
            int id = t;
            workers.add(Thread.ofPlatform().start(() -> {
                SplittableRandom random = new SplittableRandom(id);
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        int first = random.nextInt(32);
                        int last = Math.min(31, first + random.nextInt(i % 50 == 0 ? 32 : 4));
                        try (RangeLatch.Guard ignored = latch.acquire(new byte[] {(byte) first}, new byte[] {(byte) last})) {
                            for (int k = first; k <= last; k++) {
                                if (!owner.compareAndSet(k, 0, id)) {
                                    throw new AssertionError("key " + k + " held by " + owner.get(k) + " and " + id);
                                }
                            }
                            Thread.onSpinWait();
                            for (int k = first; k <= last; k++) {
                                owner.set(k, 0);
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
        });
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(0, latch.queuedCount());
    }

    @Test
    void aWaiterIsNotOvertakenByAnOverlappingLatecomer() throws Exception {
        RangeLatch latch = new RangeLatch();
        RangeLatch.Guard holder = latch.acquire(new byte[] {5});
        CountDownLatch acquiredWide = new CountDownLatch(1);
        Thread wide = Thread.ofPlatform().start(() -> {
            try (RangeLatch.Guard g = latch.acquire(new byte[] {0}, new byte[] {9})) {
                acquiredWide.countDown();
            }
        });
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            while (latch.queuedCount() < 2) {
                Thread.onSpinWait(); // the wide request is queued behind the holder
            }
        });
        assertEquals(1, acquiredWide.getCount(), "the wide range waits for the holder of key 5");
        assertNull(latch.tryAcquire(new byte[] {3}, new byte[] {3}),
                "key 3 is free, but the earlier wide waiter overlaps it");
        RangeLatch.Guard disjoint = latch.tryAcquire(new byte[] {10}, new byte[] {12});
        assertNotNull(disjoint, "ranges that overlap nobody are granted at once");
        holder.close();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            acquiredWide.await();
            wide.join();
        });
        disjoint.close();
        assertEquals(0, latch.queuedCount());
    }

    @Test
    void badRangesAreRefused() {
        RangeLatch latch = new RangeLatch();
        assertThrows(IllegalArgumentException.class, () -> latch.acquire(new byte[] {2}, new byte[] {1}));
        assertThrows(NullPointerException.class, () -> latch.acquire(null, new byte[] {1}));
        // Unsigned order: 0x80 sorts after 0x7F.
        try (RangeLatch.Guard g = latch.acquire(new byte[] {0x7F}, new byte[] {(byte) 0x80})) {
            assertArrayEquals(new byte[] {(byte) 0x80}, g.last());
        }
        assertEquals(0, latch.queuedCount());
    }
}
