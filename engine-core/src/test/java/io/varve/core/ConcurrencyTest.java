package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many writers with multi-key batches while readers check the guarantees of ordered mode: a batch is seen
 * whole or not at all, and what a snapshot shows never changes.
 */
class ConcurrencyTest {

    private static final int GROUP_SIZE = 8;
    private static final int WRITERS = 4;
    private static final int BATCHES_PER_WRITER = 1500;

    @Test
    @Timeout(120)
    void readersNeverSeePartOfABatchAndSnapshotsNeverChange() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(Path.of("/c"), Options.defaults().withFileSystem(fs).withWriteBufferSize(256 << 10))) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch writersDone = new CountDownLatch(WRITERS);
            CyclicBarrier start = new CyclicBarrier(WRITERS + 2);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        for (int i = 1; i <= BATCHES_PER_WRITER; i++) {
                            // Every batch overwrites one whole group with one stamp: writer and round.
                            int group = (writer + i) % 3;
                            byte[] stamp = stamp(writer, i);
                            WriteBatch batch = new WriteBatch();
                            for (int k = 0; k < GROUP_SIZE; k++) {
                                batch.put(key(group, k), stamp);
                            }
                            db.write(batch, i % 50 == 0 ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    } finally {
                        writersDone.countDown();
                    }
                }));
            }
            for (int r = 0; r < 2; r++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        while (writersDone.getCount() > 0 && failure.get() == null) {
                            checkGroupsAtomic(db);
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("concurrent check failed", failure.get());
            }
            checkGroupsAtomic(db);
        }
    }

    private static void checkGroupsAtomic(Db db) {
        try (Snapshot snapshot = db.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            byte[][][] firstRead = new byte[3][][];
            for (int group = 0; group < 3; group++) {
                firstRead[group] = readGroup(db, at, group);
                assertUniform(firstRead[group], group);
            }
            // Point reads through the iterator too, then again: a snapshot's contents never change.
            try (DbIterator it = db.iterator(at)) {
                int seen = 0;
                for (it.seekToFirst(); it.valid(); it.next()) {
                    int group = it.key()[0];
                    int k = it.key()[1];
                    assertArrayEquals(firstRead[group][k], it.value(), "iterator disagrees with get at one snapshot");
                    seen++;
                }
                int expected = 0;
                for (byte[][] g : firstRead) {
                    expected += g[0] == null ? 0 : GROUP_SIZE;
                }
                assertEquals(expected, seen);
            }
            for (int group = 0; group < 3; group++) {
                byte[][] again = readGroup(db, at, group);
                for (int k = 0; k < GROUP_SIZE; k++) {
                    assertArrayEquals(firstRead[group][k], again[k], "snapshot contents changed");
                }
            }
        }
    }

    private static byte[][] readGroup(Db db, ReadOptions at, int group) {
        byte[][] values = new byte[GROUP_SIZE][];
        for (int k = 0; k < GROUP_SIZE; k++) {
            values[k] = db.get(at, key(group, k));
        }
        return values;
    }

    private static void assertUniform(byte[][] values, int group) {
        for (int k = 1; k < values.length; k++) {
            assertTrue(Arrays.equals(values[0], values[k]),
                    "group " + group + " shows part of a batch: key 0 = " + Arrays.toString(values[0]) + ", key "
                            + k + " = " + Arrays.toString(values[k]));
        }
    }

    private static byte[] key(int group, int k) {
        return new byte[] {(byte) group, (byte) k};
    }

    private static byte[] stamp(int writer, int round) {
        return ByteBuffer.allocate(8).putInt(writer).putInt(round).array();
    }

    /**
     * Group commit, made deterministic: the first fsync is held until every other synced writer has its batch
     * in the log and is blocked behind it, then released. The next leader's single fsync must cover all of
     * them: at most two fsyncs in all (one, if the first leader's happened to cover every batch already).
     */
    @Test
    @Timeout(60)
    void waitingSyncedWritersShareOneFsync() throws Exception {
        GatedSyncFileSystem fs = new GatedSyncFileSystem(new MemFileSystem());
        int writers = 8;
        try (Db db = Db.open(Path.of("/g"), Options.defaults().withFileSystem(fs))) {
            long[] before = DbTestAccess.syncStatistics(db);
            long sequenceBefore = DbTestAccess.lastAllocatedSequence(db);
            fs.gate = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                byte[] key = {(byte) i};
                threads.add(Thread.ofPlatform().start(() -> db.put(WriteOptions.SYNC, key, key)));
            }
            // Wait (without sleeping) until every batch is in the log, one writer is parked inside fsync and the
            // rest are parked behind it. A writer merely parked could still be waiting to append its batch,
            // which would then need a third fsync.
            while (!(fs.insideSync == 1 && DbTestAccess.lastAllocatedSequence(db) == sequenceBefore + writers
                    && blockedCount(threads) == writers)) {
                Thread.onSpinWait();
            }
            fs.gate.countDown();
            for (Thread t : threads) {
                t.join();
            }
            long[] after = DbTestAccess.syncStatistics(db);
            long fsyncs = after[0] - before[0];
            assertTrue(fsyncs >= 1 && fsyncs <= 2, "fsyncs for " + writers + " concurrent synced writers: " + fsyncs);
            assertEquals(writers, after[1] - before[1]);
            for (int i = 0; i < writers; i++) {
                assertArrayEquals(new byte[] {(byte) i}, db.get(new byte[] {(byte) i}));
            }
        }
    }

    private static int blockedCount(List<Thread> threads) {
        int n = 0;
        for (Thread t : threads) {
            Thread.State state = t.getState();
            if (state == Thread.State.WAITING || state == Thread.State.BLOCKED) {
                n++;
            }
        }
        return n;
    }

    /** Holds every fsync until {@link #gate} opens, and counts the threads inside one. */
    private static final class GatedSyncFileSystem extends ForwardingFileSystem {
        volatile CountDownLatch gate = new CountDownLatch(0);
        volatile int insideSync;

        GatedSyncFileSystem(FileSystem delegate) {
            super(delegate);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            WritableFile file = delegate.create(path);
            return new ForwardingWritableFile(file) {
                @Override
                public void sync() throws IOException {
                    synchronized (GatedSyncFileSystem.this) {
                        insideSync++;
                    }
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    } finally {
                        synchronized (GatedSyncFileSystem.this) {
                            insideSync--;
                        }
                    }
                    delegate.sync();
                }
            };
        }
    }
}
