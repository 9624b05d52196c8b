package io.varve.core;

import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flush that fails on the disk while close waits for it is a failure nobody else could see: close reports
 * it, instead of taking it for one that closing caused (the WAL still holds the data, so nothing is lost).
 */
class CloseReportsBackgroundFailureTest {

    @Test
    void aFlushThatFailsOnTheDiskWhileCloseWaitsForItMakesCloseThrow() throws Exception {
        GatedTables fs = new GatedTables();
        fs.fail = true;
        Db db = Db.open(Path.of("/close-failure"), Options.defaults().withFileSystem(fs));
        db.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
        Thread flush = Thread.ofPlatform().start(() -> {
            try {
                db.flush();
            } catch (RuntimeException expected) {
                // the flush fails, or close cut it short: either way the test looks at close
            }
        });
        fs.arrived.await();
        AtomicReference<RuntimeException> closeFailure = new AtomicReference<>();
        Thread close = Thread.ofPlatform().start(() -> {
            try {
                db.close();
            } catch (RuntimeException e) {
                closeFailure.set(e);
            }
        });
        // Close marks the database closed before anything that can wait; here it waits for the held flush.
        while (close.getState() != Thread.State.WAITING && close.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(close.isAlive(), "close returned while the flush was still held");
            Thread.onSpinWait();
        }
        fs.gate.countDown();
        close.join();
        flush.join();
        RuntimeException failure = closeFailure.get();
        assertNotNull(failure, "close reported nothing");
        assertInstanceOf(UncheckedIOException.class, failure);
        Throwable cause = failure;
        boolean disk = false;
        while (cause != null && !disk) {
            disk = String.valueOf(cause.getMessage()).contains("disk full (simulated)");
            cause = cause.getCause();
        }
        assertTrue(disk, () -> "close reported " + failure + ", not the flush's disk failure");
    }
}
