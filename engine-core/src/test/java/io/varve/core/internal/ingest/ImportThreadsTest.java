package io.varve.core.internal.ingest;

import io.varve.core.ingest.CpuPriority;
import io.varve.base.CorruptionException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImportThreadsTest {

    @Test
    void normalRunsOnTheCallersThread() throws IOException {
        try (ImportThreads threads = new ImportThreads(CpuPriority.NORMAL)) {
            assertSame(Thread.currentThread(), threads.run(Thread::currentThread));
        }
    }

    @Test
    void loweredRunsOnADatabaseThreadAndReturnsItsResult() throws IOException {
        try (ImportThreads threads = new ImportThreads(CpuPriority.LOW)) {
            Thread ran = threads.run(Thread::currentThread);
            assertTrue(ran != Thread.currentThread() && ran.getName().startsWith("varve-ingest-low-"), ran.getName());
            assertTrue(ran.isDaemon());
        }
    }

    @Test
    void theWorksExceptionsReachTheCallerUnwrapped() {
        try (ImportThreads threads = new ImportThreads(CpuPriority.IDLE)) {
            CorruptionException corrupt = new CorruptionException(Path.of("f.sst"), 17, "bad block");
            assertSame(corrupt, assertThrows(CorruptionException.class, () -> threads.run(() -> {
                throw corrupt;
            })));
            IllegalArgumentException bad = new IllegalArgumentException("overlap");
            assertSame(bad, assertThrows(IllegalArgumentException.class, () -> threads.run(() -> {
                throw bad;
            })));
            AssertionError error = new AssertionError("boom");
            assertSame(error, assertThrows(AssertionError.class, () -> threads.run(() -> {
                throw error;
            })));
        }
    }

    @Test
    void anInterruptedCallerStillGetsTheResultAndKeepsItsInterrupt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        try (ImportThreads threads = new ImportThreads(CpuPriority.IDLE)) {
            Thread caller = Thread.ofPlatform().start(() -> {
                try {
                    outcome.set(threads.run(() -> {
                        started.countDown();
                        awaitUninterruptibly(release);
                        return "imported";
                    }));
                } catch (Throwable t) {
                    outcome.set(t);
                }
                interruptKept.set(Thread.currentThread().isInterrupted());
            });
            started.await();
            caller.interrupt();
            release.countDown();
            caller.join();
        }
        assertEquals("imported", outcome.get());
        assertTrue(interruptKept.get());
    }

    @Test
    void closeWaitsForRunningWorkThenRefusesMore() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        ImportThreads threads = new ImportThreads(CpuPriority.IDLE);
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                threads.run(() -> {
                    started.countDown();
                    awaitUninterruptibly(release);
                    finished.set(true);
                    return null;
                });
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        started.await();
        Thread closing = Thread.currentThread();
        // Releases the work only once this thread is blocked inside close().
        Thread releaser = Thread.ofPlatform().start(() -> {
            while (closing.getState() != Thread.State.TIMED_WAITING && closing.getState() != Thread.State.WAITING) {
                Thread.onSpinWait();
            }
            release.countDown();
        });
        threads.close();
        assertTrue(finished.get(), "close returned before the running work ended");
        releaser.join();
        caller.join();
        assertThrows(IllegalStateException.class, () -> threads.run(() -> "late"));
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
