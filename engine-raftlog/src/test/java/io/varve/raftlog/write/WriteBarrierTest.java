package io.varve.raftlog.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
}
