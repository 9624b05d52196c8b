package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionClockTest {

    @Test
    void versionsIncreaseAcrossRestartsEvenIfTheClockWentBack(@TempDir Path dir) throws Exception {
        long last;
        try (Db db = Db.open(dir, Options.defaults().withWriteBufferSize(1 << 20))) {
            VersionClock clock = new VersionClock(db);
            long previous = clock.next();
            for (int i = 0; i < 10_000; i++) {
                long v = clock.next();
                assertTrue(v > previous);
                previous = v;
            }
            last = previous;
            // Pretend the previous run issued versions far in the future (a clock that later went back).
            db.put(VersionClock.FLOOR_KEY, ByteBuffer.allocate(8).putLong(last + 10_000_000_000L).array());
            last += 10_000_000_000L;
        }
        try (Db db = Db.open(dir, Options.defaults().withWriteBufferSize(1 << 20))) {
            assertTrue(new VersionClock(db).next() > last, "never below the persisted floor");
        }
    }
}
