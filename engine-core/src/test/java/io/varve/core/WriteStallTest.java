package io.varve.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writers stop while flushes cannot keep up and resume when they do; if the background work fails instead,
 * stopped writers wake with the failure rather than waiting forever.
 */
class WriteStallTest {


    private static final int WRITES = 400;

    private static Options options(GatedTables fs) {
        // One waiting memtable is the limit: the second rotation stops writers until the flush finishes.
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10).withWriteStallTriggers(1, 20, 36);
    }

    /** Writes 400 puts of 1000 bytes on a thread of its own; returns once that thread is parked in a stop. */
    private static Thread startWriterAndAwaitStop(Db db, AtomicInteger written, AtomicReference<Throwable> failure) {
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; i < WRITES; i++) {
                    db.put(new byte[] {(byte) i, (byte) (i >> 8)}, new byte[1000]);
                    written.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        DbImpl impl = (DbImpl) db;
        // Wait, without sleeping, until the writer is parked in a stop.
        while (!(impl.backgroundStatistics()[4] > 0 && writer.getState() == Thread.State.WAITING)) {
            assertTrue(writer.isAlive(), "writer finished without ever stalling");
            Thread.onSpinWait();
        }
        return writer;
    }

    @Test
    @Timeout(60)
    void writersStopWhileFlushIsStuckAndResumeAfterwards() throws Exception {
        GatedTables fs = new GatedTables();
        try (Db db = Db.open(Path.of("/stall"), options(fs))) {
            AtomicInteger written = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = startWriterAndAwaitStop(db, written, failure);
            DbImpl impl = (DbImpl) db;
            int beforeRelease = written.get();
            assertTrue(beforeRelease < WRITES, "writer was stopped part way");
            fs.gate.countDown();
            writer.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(WRITES, written.get());
            assertTrue(impl.backgroundStatistics()[3] > 0, "stall time was measured");
        }
    }

    @Test
    @Timeout(60)
    void aNoSlowdownWriteFailsAtOnceDuringAStopAndWritesNothing() throws Exception {
        GatedTables fs = new GatedTables();
        try (Db db = Db.open(Path.of("/stall"), options(fs))) {
            WriteOptions noSlowdown = WriteOptions.DEFAULT.withNoSlowdown(true);
            db.put(noSlowdown, new byte[] {'a'}, new byte[] {1});
            assertArrayEquals(new byte[] {1}, db.get(new byte[] {'a'}), "no stall: written as usual");

            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = startWriterAndAwaitStop(db, new AtomicInteger(), failure);
            WriteBatch batch = new WriteBatch();
            batch.put(new byte[] {'b'}, new byte[] {2});
            assertThrows(WriteStallException.class, () -> db.write(batch, noSlowdown));
            assertThrows(WriteStallException.class, () -> db.put(noSlowdown, new byte[] {'a'}, new byte[] {3}));
            assertTrue(writer.isAlive() && writer.getState() == Thread.State.WAITING,
                    "the ordinary writer is still stopped");

            fs.gate.countDown();
            writer.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertNull(db.get(new byte[] {'b'}), "the refused batch was not written");
            assertArrayEquals(new byte[] {1}, db.get(new byte[] {'a'}), "the refused put was not written");
            db.put(noSlowdown, new byte[] {'b'}, new byte[] {4});
            assertArrayEquals(new byte[] {4}, db.get(new byte[] {'b'}), "written once the stop is over");
        }
    }

    @Test
    @Timeout(60)
    void stoppedWritersWakeWithTheBackgroundFailure() throws Exception {
        GatedTables fs = new GatedTables();
        Db db = Db.open(Path.of("/stall"), options(fs));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = startWriterAndAwaitStop(db, new AtomicInteger(), failure);
        fs.fail = true;
        fs.gate.countDown();
        writer.join();
        assertNotNull(failure.get(), "the stalled writer must see the failure");
        assertTrue(failure.get() instanceof UncheckedIOException, "got " + failure.get());
        try {
            db.close();
        } catch (UncheckedIOException expected) {
            // closing a failed database reports the failure again
        }
    }

    /**
     * A thread waiting in flush() for a flush that close() drops from the queue must be released with an
     * error, not left waiting forever.
     */
    @Test
    @Timeout(60)
    void closeReleasesWaitersOfFlushesItDrops() throws Exception {
        GatedTables fs = new GatedTables();
        // Stall triggers out of the way: this test is about queued flushes, not stopped writers.
        Db db = Db.open(Path.of("/stall"), Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withWriteStallTriggers(100, 100, 100));
        for (int i = 0; i < 200; i++) {
            db.put(new byte[] {(byte) i, (byte) (i >> 8)}, new byte[1000]);
        }
        // Several memtables were sealed; the first flush waits at the gate, the rest sit in the queue.
        AtomicReference<Throwable> flushOutcome = new AtomicReference<>();
        Thread flusher = Thread.ofPlatform().start(() -> {
            try {
                db.flush();
                flushOutcome.set(new AssertionError("flush() returned although its flush never ran"));
            } catch (Throwable t) {
                flushOutcome.set(t);
            }
        });
        while (flusher.getState() != Thread.State.WAITING) {
            assertTrue(flusher.isAlive(), "flush() finished before close");
            Thread.onSpinWait();
        }
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                db.close();
            } catch (RuntimeException expected) {
                // the interrupted flush fails, and close reports it
            }
        });
        // close() interrupts the flush waiting at the gate and drops the queued ones.
        closer.join();
        flusher.join();
        assertTrue(flushOutcome.get() instanceof UncheckedIOException, "flush() should fail, got " + flushOutcome.get());
        fs.gate.countDown();
    }
}
