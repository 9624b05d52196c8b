package io.varve.core;

import io.varve.base.LeakDetector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memtable budget over two databases, with flushes held at a gate: filling it from one database makes that
 * database flush and stops the writers of the other; the flush's end (or the failure of the database that
 * holds the memory) lets them go.
 */
class WriteBufferManagerTest {

    private static final long BUDGET = 256 << 10;
    private static final byte[] VALUE = new byte[1000];

    private static Options options(GatedTables fs, WriteBufferManager manager) {
        // Memtables far larger than the budget: only the budget flushes them.
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(4 << 20).withWriteBufferManager(manager);
    }

    private static byte[] key(int i) {
        return new byte[] {(byte) (i >> 16), (byte) (i >> 8), (byte) i};
    }

    /** Writes to {@code db} until the budget is full; none of these writes finds it full, so none waits. */
    private static void fill(Db db, WriteBufferManager manager) {
        int i = 0;
        while (manager.usedBytes() < manager.budgetBytes()) {
            db.put(key(i++), VALUE);
        }
    }

    /** Starts a put into {@code db} on a thread of its own; returns once the thread waits for the budget. */
    private static Thread stalledWriter(Db db, WriteBufferManager manager, AtomicReference<Throwable> failure) {
        long stallsBefore = manager.stallCount();
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                db.put(new byte[] {42}, VALUE);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        while (!(manager.stallCount() > stallsBefore && writer.getState() == Thread.State.WAITING)) {
            assertTrue(writer.isAlive(), "the writer finished without waiting for the budget");
            Thread.onSpinWait();
        }
        return writer;
    }

    @Test
    @Timeout(60)
    void aFullBudgetFlushesTheLargestDatabaseAndStopsEveryWriterUntilTheFlushEnds() throws Exception {
        GatedTables fs = new GatedTables();
        WriteBufferManager manager = new WriteBufferManager(BUDGET);
        Path dirA = Path.of("/a");
        Path dirB = Path.of("/b");
        try (Db a = Db.open(dirA, options(fs, manager)); Db b = Db.open(dirB, options(fs, manager))) {
            assertEquals(2, manager.databaseCount());
            fill(a, manager);
            assertEquals(1, manager.flushCount(), "a, the largest, was asked to flush");
            assertEquals(1, a.getLongProperty("varve.num-immutable-mem-table"));
            assertTrue(manager.mutableBytes() < manager.budgetBytes() / 2, "its memtable was sealed");

            WriteStallException refused = assertThrows(WriteStallException.class,
                    () -> b.put(WriteOptions.DEFAULT.withNoSlowdown(true), new byte[] {1}, VALUE));
            assertTrue(refused.getMessage().contains("write buffers"), refused.getMessage());

            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = stalledWriter(b, manager, failure);
            fs.gate.countDown();
            writer.join();
            assertNull(failure.get());
            assertArrayEquals(VALUE, b.get(new byte[] {42}));
            a.flush();
            assertTrue(manager.usedBytes() < manager.budgetBytes());
            assertEquals(0, a.getLongProperty("varve.num-immutable-mem-table"), "a's memtables were written out");
        }
        assertEquals(0, manager.databaseCount());
        assertEquals(0, manager.usedBytes(), "closed databases leave the budget");
        assertTrue(LeakDetector.openOwnedBy(dirA.toString()).isEmpty());
        assertTrue(LeakDetector.openOwnedBy(dirB.toString()).isEmpty());
    }

    @Test
    @Timeout(60)
    void aDatabaseWhoseFlushFailsStopsCountingSoTheOthersWritersGo() throws Exception {
        GatedTables fs = new GatedTables();
        WriteBufferManager manager = new WriteBufferManager(BUDGET);
        Db a = Db.open(Path.of("/a"), options(fs, manager));
        try (Db b = Db.open(Path.of("/b"), options(fs, manager))) {
            fill(a, manager);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = stalledWriter(b, manager, failure);
            fs.fail = true;
            fs.gate.countDown();
            writer.join();
            assertNull(failure.get(), "b's write went through once a failed");
            assertEquals(1, a.getLongProperty("varve.background-errors"));
            assertEquals(b.getLongProperty("varve.cur-size-all-mem-tables"), manager.usedBytes(),
                    "only b counts");
        } finally {
            try {
                a.close();
            } catch (UncheckedIOException expected) {
                // closing a failed database reports the failure again
            }
        }
        assertEquals(0, manager.databaseCount());
    }
}
