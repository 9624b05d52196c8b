package io.varve.raftlog.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Gathering, made independent of timing: the test decides how long a leader may wait for company (forever,
 * in effect), and holds rounds at a latch to build the queue it wants.
 */
class WriteBarrierTest {
    private static final long FOREVER = TimeUnit.SECONDS.toNanos(60);

    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** Sizes of the groups led, in order. */
    private final List<Integer> groups = new CopyOnWriteArrayList<>();
    /** When set, the next leader blocks here (and counts down {@code leading}) before settling its group. */
    private volatile CountDownLatch hold;
    private volatile CountDownLatch leading = new CountDownLatch(1);

    private final WriteBarrier.Leader leader = group -> {
        groups.add(group.size());
        CountDownLatch h = hold;
        if (h != null) {
            hold = null;
            leading.countDown();
            try {
                h.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        group.forEach(r -> r.succeed(0));
    };

    private static WriteBarrier.Request synced() {
        return new WriteBarrier.Request(false, 1, true) { };
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private Future<?> write(WriteBarrier barrier) {
        return pool.submit(() -> barrier.enter(synced()));
    }

    /** Holds one synced round at the latch while {@code n} more writers queue, then releases it. */
    private void roundOfOnePlusQueued(WriteBarrier barrier, int n) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        leading = new CountDownLatch(1);
        hold = release;
        Future<?> first = write(barrier);
        assertTrue(leading.await(30, TimeUnit.SECONDS));
        List<Future<?>> queued = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            queued.add(write(barrier));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (barrier.queued() < n) {
            assertTrue(System.nanoTime() < deadline, "writers did not queue");
            Thread.onSpinWait();
        }
        release.countDown();
        first.get(30, TimeUnit.SECONDS);
        for (Future<?> f : queued) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aLeaderWaitsForAsManyWritersAsTheLastSyncedGroupHad() throws Exception {
        WriteBarrier barrier = new WriteBarrier(leader, Long.MAX_VALUE, average -> FOREVER);
        roundOfOnePlusQueued(barrier, 5); // groups of 1, then 5
        assertEquals(List.of(1, 5), groups);
        // A writer alone now leads, and waits until four more have joined it: one group of five.
        List<Future<?>> next = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            next.add(write(barrier));
        }
        for (Future<?> f : next) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertEquals(List.of(1, 5, 5), groups);
    }

    @Test
    void aWriterAfterAGroupOfOneNeverWaits() throws Exception {
        WriteBarrier barrier = new WriteBarrier(leader, Long.MAX_VALUE, average -> FOREVER);
        for (int i = 0; i < 3; i++) {
            write(barrier).get(30, TimeUnit.SECONDS); // would hang for a minute if it gathered
        }
        assertEquals(List.of(1, 1, 1), groups);
    }

    @Test
    void gatheringEndsWhenItsTimeIsUpEvenWithoutCompany() throws Exception {
        WriteBarrier barrier = new WriteBarrier(leader, Long.MAX_VALUE); // the real bound: a fraction of a ms
        roundOfOnePlusQueued(barrier, 5);
        write(barrier).get(30, TimeUnit.SECONDS); // alone: waits out its bounded gathering, then writes
        assertEquals(List.of(1, 5, 1), groups);
    }

    @Test
    void unsyncedAndExclusiveRequestsDoNotGather() throws Exception {
        WriteBarrier barrier = new WriteBarrier(leader, Long.MAX_VALUE, average -> FOREVER);
        roundOfOnePlusQueued(barrier, 5);
        pool.submit(() -> barrier.enter(new WriteBarrier.Request(false, 1, false) { })).get(30, TimeUnit.SECONDS);
        pool.submit(() -> barrier.enter(new WriteBarrier.Request(true, 0, false) { })).get(30, TimeUnit.SECONDS);
        assertEquals(List.of(1, 5, 1, 1), groups);
    }

    /** A request that carries its own number, so the leader can settle it with that number. */
    private static final class Numbered extends WriteBarrier.Request {
        final long number;

        Numbered(long number, boolean exclusive, boolean durable) {
            super(exclusive, 1, durable);
            this.number = number;
        }
    }

    @Test
    void manyWritersEachGetTheirOwnOutcomeFromOneLeaderAtATime() throws Exception {
        AtomicInteger leaders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger badExclusiveGroups = new AtomicInteger();
        AtomicLong led = new AtomicLong();
        WriteBarrier barrier = new WriteBarrier(group -> {
            if (leaders.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            for (WriteBarrier.Request r : group) {
                if (r.exclusive() && group.size() != 1) {
                    badExclusiveGroups.incrementAndGet();
                }
                Numbered n = (Numbered) r;
                if (n.number % 7 == 3) {
                    r.fail(new IllegalStateException("refused " + n.number));
                } else {
                    r.succeed(n.number);
                }
            }
            led.addAndGet(group.size());
            leaders.decrementAndGet();
        }, 4);
        int threads = 8;
        int perThread = 2_000;
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            results.add(pool.submit(() -> {
                int wrong = 0;
                for (int i = 0; i < perThread; i++) {
                    long number = (long) thread * perThread + i;
                    Numbered r = new Numbered(number, i % 97 == 0, i % 3 != 0);
                    barrier.enter(r);
                    boolean refused = number % 7 == 3;
                    if (!r.isSettled() || (refused ? r.failure() == null : r.failure() != null || r.result() != number)) {
                        wrong++;
                    }
                }
                return wrong;
            }));
        }
        for (Future<Integer> f : results) {
            assertEquals(0, f.get(60, TimeUnit.SECONDS), "requests that returned someone else's or no outcome");
        }
        assertEquals(0, overlaps.get(), "two leaders at once");
        assertEquals(0, badExclusiveGroups.get(), "an exclusive request shared its group");
        assertEquals((long) threads * perThread, led.get());
        assertEquals(0, barrier.queued());
    }

    @Test
    void anInterruptedWriterStillWaitsForItsOutcomeAndKeepsTheInterrupt() throws Exception {
        WriteBarrier barrier = new WriteBarrier(leader, Long.MAX_VALUE, average -> FOREVER);
        CountDownLatch release = new CountDownLatch(1);
        leading = new CountDownLatch(1);
        hold = release;
        Future<?> first = write(barrier);
        assertTrue(leading.await(30, TimeUnit.SECONDS));
        WriteBarrier.Request queued = synced();
        CountDownLatch returned = new CountDownLatch(1);
        AtomicInteger keptInterrupt = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            barrier.enter(queued);
            if (Thread.currentThread().isInterrupted()) {
                keptInterrupt.incrementAndGet();
            }
            returned.countDown();
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (barrier.queued() < 1) {
            assertTrue(System.nanoTime() < deadline, "writer did not queue");
            Thread.onSpinWait();
        }
        writer.interrupt();
        assertFalse(returned.await(100, TimeUnit.MILLISECONDS), "returned before its group was led");
        release.countDown();
        first.get(30, TimeUnit.SECONDS);
        assertTrue(returned.await(30, TimeUnit.SECONDS));
        writer.join();
        assertTrue(queued.isSettled());
        assertEquals(1, keptInterrupt.get());
    }
}
