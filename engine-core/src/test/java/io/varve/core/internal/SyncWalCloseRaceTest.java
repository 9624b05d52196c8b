package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code syncWal()} racing {@code close()}: every call either completes or throws the closed exception, never
 * an I/O error, never a hang, and the closed database reopens with every write that returned.
 */
class SyncWalCloseRaceTest {

    private static final Path DIR = Path.of("/sync-close");
    private static final int ROUNDS = 150;
    private static final long HANG = 30;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** Runs {@code operation} until the database is closed; returns how many calls completed. */
    private static int untilClosed(Runnable operation, CountDownLatch started) {
        int done = 0;
        while (true) {
            try {
                operation.run();
                done++;
                started.countDown();
            } catch (IllegalStateException e) {
                assertTrue(e.getMessage().contains("closed"), "only the closed exception, got " + e);
                started.countDown();
                return done;
            }
        }
    }

    @Test
    void syncWalRacingCloseCompletesOrReportsClosed() throws Exception {
        Random random = new Random(7);
        MemFileSystem fs = new MemFileSystem();
        // A write buffer no round fills: a rotation could stall the writer racer, and a stalled writer does not
        // wake at close yet (a separate defect, fixed with the write stalls).
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(4 << 20);
        for (int round = 0; round < ROUNDS; round++) {
            Db db = Db.open(DIR, options);
            byte[] key = ("round" + round).getBytes(StandardCharsets.UTF_8);
            db.put(key, key);
            CountDownLatch started = new CountDownLatch(1 + random.nextInt(3));
            List<Future<Integer>> racers = new ArrayList<>();
            racers.add(threads.submit(() -> untilClosed(db::syncWal, started)));
            racers.add(threads.submit(() -> untilClosed(db::syncWal, started)));
            racers.add(threads.submit(() -> untilClosed(() -> db.put(key, key), started)));
            assertTrue(started.await(HANG, TimeUnit.SECONDS));
            db.close();
            for (Future<Integer> racer : racers) {
                try {
                    racer.get(HANG, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    fail("round " + round + ": a racer failed with something other than the closed exception",
                            e.getCause());
                }
            }
            try (Db reopened = Db.open(DIR, options)) {
                assertArrayEquals(key, reopened.get(key), "round " + round);
            }
        }
    }

    /** A file system whose log fsyncs on the thread named {@link #HELD} wait for {@link #gate}. */
    private static final class HeldSyncs extends ForwardingFileSystem {
        static final String HELD = "held-sync-leader";
        final CountDownLatch inSync = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);

        HeldSyncs() {
            super(new MemFileSystem());
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            return new ForwardingWritableFile(super.create(path)) {
                @Override
                public void sync() throws IOException {
                    if (Thread.currentThread().getName().equals(HELD)) {
                        inSync.countDown();
                        try {
                            gate.await();
                        } catch (InterruptedException e) {
                            throw new IOException(e);
                        }
                    }
                    super.sync();
                }
            };
        }
    }

    /** Waits until {@code thread} blocks somewhere other than in {@code notIn} (a hang detector bounds it). */
    private static void awaitBlocked(Thread thread, String notIn) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG);
        while (true) {
            Thread.State state = thread.getState();
            if ((state == Thread.State.WAITING || state == Thread.State.BLOCKED)
                    && Arrays.stream(thread.getStackTrace())
                            .noneMatch(frame -> frame.getMethodName().equals(notIn))) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, thread.getName() + " never blocked: " + state);
            Thread.onSpinWait();
        }
    }

    /**
     * The interleaving that broke: a sync leader holds the fsync; a second syncWal, with newer bytes to sync,
     * waits for it; close starts meanwhile. The second syncWal must then sync against an open log (close waits
     * for it) or see the closed state, not find the log closed under it and fail the database.
     */
    @Test
    void aSyncWaitingForTheLeaderWhileCloseStartsDoesNotFailTheDatabase() throws Exception {
        for (int round = 0; round < 10; round++) {
            HeldSyncs fs = new HeldSyncs();
            WritePathTestAccess access = WritePathTestAccess.over(fs);
            access.put("a", false, 0);
            Thread leader = new Thread(access.pipeline::syncLog, HeldSyncs.HELD);
            CompletableFuture<Void> led = new CompletableFuture<>();
            leader.setUncaughtExceptionHandler((t, e) -> led.completeExceptionally(e));
            leader.start();
            assertTrue(fs.inSync.await(HANG, TimeUnit.SECONDS));
            access.put("b", false, 0);
            FutureTask<Void> waiter = new FutureTask<>(() -> {
                try {
                    access.pipeline.syncLog();
                } catch (IllegalStateException e) {
                    assertTrue(e.getMessage().contains("closed"), e.toString());
                }
                return null;
            });
            Thread waiterThread = new Thread(waiter, "sync-waiter");
            waiterThread.start();
            awaitBlocked(waiterThread, "none");
            FutureTask<Void> closing = new FutureTask<>(() -> {
                access.close();
                return null;
            });
            Thread closingThread = new Thread(closing, "closing");
            closingThread.start();
            awaitBlocked(closingThread, "awaitTermination");
            fs.gate.countDown();
            leader.join(TimeUnit.SECONDS.toMillis(HANG));
            assertTrue(!leader.isAlive() && !led.isCompletedExceptionally(), "the leader's sync completes");
            try {
                waiter.get(HANG, TimeUnit.SECONDS);
                closing.get(HANG, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                fail("round " + round, e.getCause());
            }
            assertNull(access.pipeline.failure(), "round " + round);
        }
    }
}
