package io.varve.core.internal;

import io.varve.core.internal.memtable.Memtable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The unordered write path's visibility rule, one interleaving at a time (gates, no timing): a writer makes its
 * batch visible only after inserting it, never waits for a writer sequenced before it, and a raise of the
 * visible sequence that comes late never lowers it.
 */
class UnorderedVisibilityTest {

    private static final long HANG = 30;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** The first insert signals {@code entered} and waits for {@code release}; later inserts run at once. */
    private static final class FirstInsertGated implements CommitPipeline.Applier {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private boolean first = true;

        @Override
        public void apply(MemorySegment batch, IntFunction<Memtable> memtableFor) {
            boolean gated;
            synchronized (this) {
                gated = first;
                first = false;
            }
            if (gated) {
                entered.countDown();
                await(release);
            }
            WritePathTestAccess.apply(batch, memtableFor);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(HANG, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test gate never opened");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aBatchIsVisibleOnlyAfterItsInsertAndALateRaiseNeverLowersTheSequence() throws Exception {
        FirstInsertGated applier = new FirstInsertGated();
        try (WritePathTestAccess path = WritePathTestAccess.unorderedWithApplier(applier)) {
            CommitPipeline pipeline = path.pipeline;
            Future<?> first = threads.submit(() -> path.put("first", false, 0)); // sequence 1
            if (!applier.entered.await(HANG, TimeUnit.SECONDS)) {
                first.get(0, TimeUnit.SECONDS); // the writer's own failure, if it failed before its insert
                throw new IllegalStateException("the first insert never started");
            }
            assertEquals(0, pipeline.visibleSequence(), "a batch still inserting is not visible yet");

            path.put("second", false, 0); // sequence 2: returns while the first is still inserting
            assertEquals(2, pipeline.visibleSequence(), "the later writer waited for nobody");

            applier.release.countDown();
            first.get(HANG, TimeUnit.SECONDS);
            assertEquals(2, pipeline.visibleSequence(), "the first writer's raise to 1 came late and changed nothing");
        }
    }

    @Test
    void concurrentRaisesLeaveTheHighestSequence() throws Exception {
        CommitQueue queue = new CommitQueue(0, new io.varve.core.internal.wal.StickyFailure(),
                CommitQueue.Parker.LOCK_SUPPORT);
        int writers = 8;
        int raises = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        Future<?>[] running = new Future<?>[writers];
        for (int w = 0; w < writers; w++) {
            int writer = w;
            running[w] = threads.submit(() -> {
                await(start);
                long seen = 0;
                for (int i = 0; i < raises; i++) {
                    // Writers interleave their sequences, so raises arrive out of order.
                    queue.raiseVisible((long) i * writers + writer + 1);
                    long now = queue.visibleSequence();
                    if (now < seen) {
                        throw new AssertionError("visible sequence went back from " + seen + " to " + now);
                    }
                    seen = now;
                }
                return null;
            });
        }
        start.countDown();
        for (Future<?> f : running) {
            f.get(HANG, TimeUnit.SECONDS);
        }
        assertEquals((long) raises * writers, queue.visibleSequence());
    }
}
