package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbImpl;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.version.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Readers pin views while flushes publish new versions underneath them: every read must still be right
 * (a value only ever grows, so a reader can check it never goes backwards), no read may touch freed
 * memory, and once everyone is done, old views and versions must be gone.
 */
class VersionConcurrencyTest {

    @Test
    @Timeout(120)
    void readsStayCorrectWhileFlushesPublishVersions() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(Path.of("/v"), Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10))) {
            int keys = 50;
            int rounds = 400;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch writerDone = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int round = 1; round <= rounds; round++) {
                        WriteBatch batch = new WriteBatch();
                        for (int k = 0; k < keys; k++) {
                            batch.put(key(k), counter(round));
                        }
                        db.write(batch, WriteOptions.DEFAULT);
                        if (round % 40 == 0) {
                            db.flush();
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    writerDone.countDown();
                }
            }));
            for (int r = 0; r < 2; r++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    long[] lastSeen = new long[keys];
                    try {
                        while (writerDone.getCount() > 0 && failure.get() == null) {
                            try (DbIterator it = db.iterator()) {
                                long first = -1;
                                int seen = 0;
                                for (it.seekToFirst(); it.valid(); it.next()) {
                                    long v = ByteBuffer.wrap(it.value()).getLong();
                                    // One batch writes every key: a view shows one round for all keys.
                                    if (first < 0) {
                                        first = v;
                                    }
                                    assertEquals(first, v, "an iterator mixed two rounds");
                                    seen++;
                                }
                                assertTrue(seen == 0 || seen == keys, "partial round: " + seen);
                            }
                            for (int k = 0; k < keys; k++) {
                                byte[] v = db.get(key(k));
                                if (v != null) {
                                    long now = ByteBuffer.wrap(v).getLong();
                                    assertTrue(now >= lastSeen[k], "value went backwards for key " + k);
                                    lastSeen[k] = now;
                                }
                            }
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
                throw new AssertionError("concurrent reads failed", failure.get());
            }
            for (int k = 0; k < keys; k++) {
                assertArrayEquals(counter(rounds), db.get(key(k)));
            }
            DbImpl impl = (DbImpl) db;
            DbTestAccess.awaitReclaimed(impl);
            Version current = DbTestAccess.currentVersion(impl);
            try {
                // Flushes produced tables (compaction may since have moved them below level 0).
                assertTrue(current.tableCount() > 0, "flushes produced tables");
            } finally {
                current.release();
            }
        }
    }

    private static byte[] key(int k) {
        return new byte[] {(byte) k};
    }

    private static byte[] counter(long round) {
        return ByteBuffer.allocate(8).putLong(round).array();
    }
}
