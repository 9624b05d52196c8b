package io.varve.core.internal;

import io.varve.core.internal.memtable.Memtable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A batch whose memtable insert throws something other than an I/O error, and writers interrupted while they
 * wait for publication. Hang detection only: bounded waits on futures, no timing.
 */
class ApplyFailureTest {

    private static final long HANG = 30;

    /** One thread per writer: the common pool may have a single thread on a small machine. */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** The first insert waits for {@code release}, then throws {@code failure}; later inserts run normally. */
    private static final class FirstApplyFails implements CommitPipeline.Applier {
        final CountDownLatch firstEntered = new CountDownLatch(1);
        final CountDownLatch secondApplied = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();
        final Throwable failure;

        FirstApplyFails(Throwable failure) {
            this.failure = failure;
        }

        @Override
        public void apply(MemorySegment batch, IntFunction<Memtable> memtableFor) {
            if (calls.incrementAndGet() == 1) {
                firstEntered.countDown();
                awaitQuietly(release);
                if (failure instanceof RuntimeException r) {
                    throw r;
                }
                if (failure instanceof Error e) {
                    throw e;
                }
            }
            WritePathTestAccess.apply(batch, memtableFor);
            secondApplied.countDown();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(HANG, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test gate never opened");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aRuntimeExceptionInApplyFailsThePipelineAndReleasesLaterWriters() throws Exception {
        failsThePipeline(new IllegalStateException("injected bug"));
    }

    @Test
    void anOutOfMemoryErrorInApplyFailsThePipelineAndReleasesLaterWriters() throws Exception {
        failsThePipeline(new OutOfMemoryError("injected"));
    }

    private void failsThePipeline(Throwable injected) throws Exception {
        FirstApplyFails applier = new FirstApplyFails(injected);
        try (WritePathTestAccess access = WritePathTestAccess.withApplier(applier)) {
            CompletableFuture<Void> first = CompletableFuture.runAsync(() -> access.put("a", false, 0), threads);
            assertTrue(applier.firstEntered.await(HANG, TimeUnit.SECONDS));
            CompletableFuture<Void> second = CompletableFuture.runAsync(() -> access.put("b", false, 0), threads);
            // The second batch is queued behind the first (sequenced after it) and applied: it can only wait.
            assertTrue(applier.secondApplied.await(HANG, TimeUnit.SECONDS));
            applier.release.countDown();

            ExecutionException firstFailure = assertThrows(ExecutionException.class,
                    () -> first.get(HANG, TimeUnit.SECONDS));
            assertSame(injected, firstFailure.getCause());
            ExecutionException secondFailure = assertThrows(ExecutionException.class,
                    () -> second.get(HANG, TimeUnit.SECONDS), "a writer queued behind the failed batch is released");
            assertTrue(hasCause(secondFailure, injected), "the released writer is told the cause");
            assertSame(injected, access.pipeline.failure());
            RuntimeException refused = assertThrows(RuntimeException.class, () -> access.put("c", false, 0));
            assertTrue(hasCause(refused, injected), "later commits are refused with the cause");
            assertEquals(0, access.pipeline.visibleSequence(), "neither batch became visible");
        }
    }

    private static boolean hasCause(Throwable thrown, Throwable cause) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t == cause) {
                return true;
            }
        }
        return false;
    }

    @Test
    void anInterruptedWriterWaitsForPublicationWithoutSpinningAndKeepsTheFlag() throws Exception {
        CountDownLatch firstEntered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger applies = new AtomicInteger();
        CommitPipeline.Applier applier = (batch, memtableFor) -> {
            if (applies.incrementAndGet() == 1) {
                firstEntered.countDown();
                awaitQuietly(release);
            }
            WritePathTestAccess.apply(batch, memtableFor);
        };
        Semaphore parks = new Semaphore(0);
        AtomicInteger parksWhileInterrupted = new AtomicInteger();
        CommitQueue.Parker parker = blocker -> {
            if (Thread.currentThread().isInterrupted()) {
                // LockSupport.park returns at once for an interrupted thread: parking like this is a spin.
                parksWhileInterrupted.incrementAndGet();
            }
            parks.release();
            LockSupport.park(blocker);
        };
        try (WritePathTestAccess access = WritePathTestAccess.withApplierAndParker(applier, parker)) {
            CompletableFuture<Void> first = CompletableFuture.runAsync(() -> access.put("a", false, 0), threads);
            assertTrue(firstEntered.await(HANG, TimeUnit.SECONDS));
            CompletableFuture<Thread> secondThread = new CompletableFuture<>();
            CompletableFuture<Boolean> secondInterrupted = CompletableFuture.supplyAsync(() -> {
                secondThread.complete(Thread.currentThread());
                access.put("b", false, 0);
                return Thread.interrupted();
            }, threads);
            assertTrue(parks.tryAcquire(HANG, TimeUnit.SECONDS), "the second writer waits for publication");
            secondThread.get(HANG, TimeUnit.SECONDS).interrupt();
            assertTrue(parks.tryAcquire(HANG, TimeUnit.SECONDS), "woken by the interrupt, it parks again");
            release.countDown();

            first.get(HANG, TimeUnit.SECONDS);
            assertTrue(secondInterrupted.get(HANG, TimeUnit.SECONDS), "the interrupt flag is set again on return");
            assertEquals(0, parksWhileInterrupted.get(), "never parked with the flag set, which would spin");
            assertEquals(2, access.pipeline.visibleSequence(), "both writes are visible");
            assertNull(access.pipeline.failure());
        }
    }
}
