package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        while (!(DbTestAccess.backgroundStatistics(impl)[4] > 0 && writer.getState() == Thread.State.WAITING)) {
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
            assertTrue(DbTestAccess.backgroundStatistics(impl)[3] > 0, "stall time was measured");
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
     * close() lets the running flush finish instead of interrupting it (an interrupt in a FileChannel write
     * closes the channel: the close used to fail and the manifest with it), and drops the queued flushes: a
     * thread waiting in flush() for one of those is released with the closed state (not an I/O error: the disk
     * is fine), not left waiting forever.
     * Everything written is there after a reopen.
     */
    @Test
    @Timeout(60)
    void closeLetsTheRunningFlushFinishAndReleasesWaitersOfFlushesItDrops() throws Exception {
        GatedTables fs = new GatedTables();
        // Stall triggers out of the way: this test is about queued flushes, not stopped writers.
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withWriteStallTriggers(100, 100, 100);
        Db db = Db.open(Path.of("/stall"), options);
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
        AtomicReference<Throwable> closeOutcome = new AtomicReference<>();
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                db.close();
            } catch (Throwable t) {
                closeOutcome.set(t);
            }
        });
        // close() has marked the database closed once it waits; the flush at the gate may then go on.
        while (closer.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(closer.isAlive(), "close() returned while a flush was still held at the gate");
            Thread.onSpinWait();
        }
        fs.gate.countDown();
        closer.join();
        flusher.join();
        assertFalse(fs.interrupted, "close() interrupted the running flush");
        assertNull(closeOutcome.get(), "close() must not fail while a flush runs");
        assertTrue(flushOutcome.get() instanceof IllegalStateException,
                "flush() should report the closed state, got " + flushOutcome.get());
        try (Db reopened = Db.open(Path.of("/stall"), options)) {
            for (int i = 0; i < 200; i++) {
                assertArrayEquals(new byte[1000], reopened.get(new byte[] {(byte) i, (byte) (i >> 8)}), "key " + i);
            }
        }
    }
}
