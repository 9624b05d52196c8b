package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.fs.MemFileSystem;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Concurrent synced writers: nothing acknowledged is lost, and one fsync serves many writers. */
class GroupCommitTest {
    private static final Path DIR = Path.of("/group");

    /**
     * Waits until {@code queued} writers wait behind the held leader, opens its gate, and waits for the leader
     * and every follower to finish.
     */
    private static void releaseOnceQueued(RaftLogEngine engine, int queued, CountDownLatch release, Future<?> leader,
                                          List<Future<?>> followers) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (engine.stats().queuedWrites() < queued) {
            assertTrue(System.nanoTime() < deadline, "followers did not queue up");
            Thread.onSpinWait();
        }
        release.countDown();
        leader.get(30, TimeUnit.SECONDS);
        for (Future<?> f : followers) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    private static byte[] entry(int thread, long index) {
        return ByteBuffer.allocate(16).putLong(thread).putLong(index).array();
    }

    @Test
    void concurrentSyncedWritesAllSurviveACrash() throws Exception {
        MemFileSystem mem = new MemFileSystem();
        CountingFileSystem fs = new CountingFileSystem(mem);
        fs.syncWork = 400; // ~1.6 MiB of checksumming: syncs take long enough for writers to pile up
        RaftLogOptions options = RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(64 << 10);
        int threads = 6;
        int writes = 300;
        RaftLogEngine engine = RaftLogEngine.open(DIR, options);
        long syncsBefore = fs.syncs.get();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (long i = 1; i <= writes; i++) {
                        // Two groups per thread; one shared group gets a key from everyone.
                        LogBatch b = new LogBatch().addEntries(thread, i, List.of(entry(thread, i)))
                                .addEntries(100 + thread, i, List.of(entry(thread, -i)))
                                .put(1000, ("t" + thread).getBytes(), entry(thread, i));
                        engine.write(b, true);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long syncs = fs.syncs.get() - syncsBefore;
        // Counts, not timing: with six threads writing during slow syncs, some must have shared an fsync.
        assertTrue(syncs < (long) threads * writes, "grouping: " + syncs + " fsyncs for " + threads * writes + " writes");
        System.out.printf("group commit: %d fsyncs for %d synced writes%n", syncs, threads * writes);
        mem.crash(); // every write was acknowledged as synced: all of it must be there
        EngineChecks.closeCrashed(engine);
        try (RaftLogEngine reopened = RaftLogEngine.open(DIR, options)) {
            for (int t = 0; t < threads; t++) {
                assertEquals(OptionalLong.of(writes), reopened.lastIndex(t));
                assertEquals(OptionalLong.of(writes), reopened.lastIndex(100 + t));
                List<byte[]> all = reopened.entries(t, 1, writes + 1, Long.MAX_VALUE);
                for (int i = 0; i < writes; i++) {
                    assertArrayEquals(entry(t, i + 1), all.get(i));
                }
                assertArrayEquals(entry(t, writes), reopened.get(1000, ("t" + t).getBytes()));
            }
        }
    }

    /**
     * Deterministic grouping: the first writer's fsync is held at a gate until seven more synced writers are
     * queued behind it; they must then all be served by a single fsync.
     */
    @Test
    void writersQueuedBehindASyncShareTheNextOne() throws Exception {
        MemFileSystem mem = new MemFileSystem();
        CountingFileSystem fs = new CountingFileSystem(mem);
        RaftLogEngine engine = RaftLogEngine.open(DIR, RaftLogOptions.defaults().withFileSystem(fs));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch release = new CountDownLatch(1);
            fs.gate = release;
            long syncsBefore = fs.syncs.get();
            Future<?> leader = pool.submit(() -> {
                engine.write(new LogBatch().addEntries(0, 1, List.of(entry(0, 1))), true);
                return null;
            });
            assertTrue(fs.atGate.await(30, TimeUnit.SECONDS), "leader reached its fsync");
            List<Future<?>> followers = new ArrayList<>();
            for (int t = 1; t <= 7; t++) {
                int thread = t;
                followers.add(pool.submit(() -> {
                    engine.write(new LogBatch().addEntries(thread, 1, List.of(entry(thread, 1))), true);
                    return null;
                }));
            }
            releaseOnceQueued(engine, 7, release, leader, followers);
            assertEquals(2, fs.syncs.get() - syncsBefore, "one fsync for the leader, one for the seven followers");
            for (int t = 0; t <= 7; t++) {
                assertArrayEquals(entry(t, 1), engine.entry(t, 1));
            }
        } finally {
            pool.shutdownNow();
            engine.close();
        }
    }

    /**
     * Small batches queued behind a held fsync are written as one merged batch: one header, one write. A
     * member that breaks the append rule is refused alone, and what was merged survives a crash.
     */
    @Test
    void queuedSmallBatchesAreMergedIntoOneAndARejectedOneIsLeftOut() throws Exception {
        MemFileSystem mem = new MemFileSystem();
        CountingFileSystem fs = new CountingFileSystem(mem);
        RaftLogOptions options = RaftLogOptions.defaults().withFileSystem(fs);
        RaftLogEngine engine = RaftLogEngine.open(DIR, options);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        Future<?> rejected;
        try {
            CountDownLatch release = new CountDownLatch(1);
            fs.gate = release;
            long batchesBefore = engine.stats().batchesWritten();
            Future<?> leader = pool.submit(() -> {
                engine.write(new LogBatch().addEntries(0, 1, List.of(entry(0, 1))), true);
                return null;
            });
            assertTrue(fs.atGate.await(30, TimeUnit.SECONDS), "leader reached its fsync");
            List<Future<?>> followers = new ArrayList<>();
            for (int t = 1; t <= 6; t++) {
                int thread = t;
                followers.add(pool.submit(() -> {
                    engine.write(new LogBatch().addEntries(thread, 1, List.of(entry(thread, 1), entry(thread, 2)))
                            .put(thread, "hs".getBytes(), entry(thread, 0)), true);
                    return null;
                }));
            }
            // Group 0 ends at 1: appending at 3 would leave a gap.
            rejected = pool.submit(() -> {
                engine.write(new LogBatch().addEntries(0, 3, List.of(entry(0, 3))), true);
                return null;
            });
            releaseOnceQueued(engine, 7, release, leader, followers);
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> rejected.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalArgumentException, e.getCause().toString());
            assertEquals(2, engine.stats().batchesWritten() - batchesBefore, "the leader's batch, then one merged");
            for (int t = 1; t <= 6; t++) {
                assertArrayEquals(entry(t, 2), engine.entry(t, 2));
            }
        } finally {
            pool.shutdownNow();
        }
        mem.crash(); // all acknowledged as synced
        EngineChecks.closeCrashed(engine);
        try (RaftLogEngine reopened = RaftLogEngine.open(DIR, options)) {
            assertEquals(OptionalLong.of(1), reopened.lastIndex(0));
            for (int t = 1; t <= 6; t++) {
                List<byte[]> both = reopened.entries(t, 1, 3, Long.MAX_VALUE);
                assertArrayEquals(entry(t, 1), both.get(0));
                assertArrayEquals(entry(t, 2), both.get(1));
                assertArrayEquals(entry(t, 0), reopened.get(t, "hs".getBytes()));
            }
        }
    }

    @Test
    void unsyncedWritesNeedNoFsync() throws Exception {
        CountingFileSystem fs = new CountingFileSystem(new MemFileSystem());
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, RaftLogOptions.defaults().withFileSystem(fs))) {
            long before = fs.syncs.get();
            for (int i = 1; i <= 100; i++) {
                engine.write(new LogBatch().addEntries(1, i, List.of(entry(1, i))), false);
            }
            assertEquals(before, fs.syncs.get());
            engine.write(new LogBatch(), true); // an empty synced write flushes what came before
            assertEquals(before + 1, fs.syncs.get());
        }
    }
}
