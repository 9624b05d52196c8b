package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.varve.core.WriteBufferManagerProperties.BUDGET;
import static io.varve.core.WriteBufferManagerProperties.DATABASES;
import static io.varve.core.WriteBufferManagerProperties.MAX_VALUE;
import static io.varve.core.WriteBufferManagerProperties.ONE_WRITE;
import static io.varve.core.WriteBufferManagerProperties.key;
import static io.varve.core.WriteBufferManagerProperties.options;
import static io.varve.core.WriteBufferManagerProperties.reportedMemtableBytes;
import static io.varve.core.WriteBufferManagerProperties.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several writers over several databases under one budget far smaller than what they write: the total never
 * passes the budget by more than one write per writer, every writer finishes (no deadlock however often all
 * databases are full together), and once flushed the budget's figure equals what the databases hold.
 */
class WriteBufferManagerConcurrencyTest {

    private static final int WRITERS = 4;
    private static final int WRITES = 600;

    @Test
    @Timeout(300) // a hang guard, generous for loaded machines: a deadlock would otherwise stop the build
    void writersOverSeveralDatabasesStayWithinTheBudgetAndAllFinish() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        WriteBufferManager manager = new WriteBufferManager(BUDGET);
        long seed = new SplittableRandom().nextLong();
        List<Db> dbs = new ArrayList<>();
        for (int i = 0; i < DATABASES; i++) {
            dbs.add(Db.open(Path.of("/db" + i), options(fs, manager)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try {
            CyclicBarrier start = new CyclicBarrier(WRITERS);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed + writer);
                    start.await();
                    for (int i = 0; i < WRITES; i++) {
                        int k = writer << 20 | i;
                        dbs.get(random.nextInt(DATABASES)).put(key(k), value(k, 1 + random.nextInt(MAX_VALUE)));
                        long used = manager.usedBytes();
                        assertTrue(used <= BUDGET + WRITERS * ONE_WRITE, "seed " + seed + ": total " + used);
                    }
                    return null;
                }));
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
        } finally {
            pool.shutdown();
        }
        try {
            assertTrue(manager.flushCount() > 0, "only the budget flushes: the writes never fill a write buffer");
            for (Db db : dbs) {
                db.flush();
            }
            assertEquals(reportedMemtableBytes(dbs), manager.usedBytes(), "seed " + seed);
            for (int writer = 0; writer < WRITERS; writer++) {
                SplittableRandom replay = new SplittableRandom(seed + writer);
                for (int i = 0; i < WRITES; i++) {
                    int k = writer << 20 | i;
                    Db db = dbs.get(replay.nextInt(DATABASES));
                    assertArrayEquals(value(k, 1 + replay.nextInt(MAX_VALUE)), db.get(key(k)), "seed " + seed);
                }
            }
        } finally {
            dbs.forEach(Db::close);
        }
        assertEquals(0, manager.usedBytes());
    }
}
