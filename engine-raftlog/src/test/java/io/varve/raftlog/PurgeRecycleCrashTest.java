package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A write that rolls to a new file while a purge is retiring old ones, then a machine crash before any
 * directory sync: the purge's renames to recycle names are lost, so a file that the writer may already have
 * given a new header comes back under its old log-file name. The store must still open with every synced
 * batch.
 */
class PurgeRecycleCrashTest {
    private static final Path DIR = Path.of("/race");
    private static final int ENTRY = 1500;

    @Test
    void aWriterRacingThePurgeCannotReuseAFileWhoseRecycleNameIsNotDurable() throws Exception {
        MemFileSystem mem = new MemFileSystem();
        PurgeRaceFileSystem fs = new PurgeRaceFileSystem(mem);
        RaftLogOptions options = RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(4 << 10)
                .withRecycledFiles(4).withPurgeThreshold(1 << 20).withCompressionThreshold(1 << 20);
        RaftLogEngine engine = RaftLogEngine.open(DIR, options);
        // Group 1 fills several files, then compacts them all away: the purge retires them.
        for (long i = 1; i <= 8; i += 2) {
            engine.write(new LogBatch().addEntries(1, i, List.of(entry(1, i), entry(1, i + 1))), true);
        }
        engine.write(new LogBatch().compactTo(1, 8), true);
        List<byte[]> racing = List.of(entry(2, 1), entry(2, 2), entry(2, 3));
        boolean[] crashed = {false};
        boolean[] acknowledged = {false};
        RaftLogEngine running = engine;
        fs.onNextWindow(() -> {
            fs.beforeNextReuseRename(() -> {
                crashed[0] = true;
                mem.crash();
                throw new IOException("simulated machine crash");
            });
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                try {
                    running.write(new LogBatch().addEntries(2, 1, racing), true);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try {
                write.get(30, TimeUnit.SECONDS);
                acknowledged[0] = true;
            } catch (ExecutionException writeFailedInTheCrash) {
                assertTrue(crashed[0], "the racing write failed without a crash: " + writeFailedInTheCrash);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            if (!crashed[0]) {
                crashed[0] = true;
                mem.crash();
            }
            throw new IOException("simulated machine crash");
        });
        assertThrows(IOException.class, engine::purgeExpiredFiles);
        assertTrue(crashed[0], "the purge never synced its recycle renames");
        fs.beforeNextReuseRename(null);
        EngineChecks.closeCrashed(engine);

        try (RaftLogEngine reopened = RaftLogEngine.open(DIR, options)) {
            assertEquals(8, reopened.firstIndex(1).orElseThrow());
            assertArrayEquals(entry(1, 8), reopened.entry(1, 8));
            // The racing write was acknowledged only if the crash came after it; then it must be there.
            assertTrue(!acknowledged[0] || reopened.lastIndex(2).isPresent(), "a synced write was lost");
            if (reopened.lastIndex(2).isPresent()) {
                List<byte[]> got = reopened.entries(2, 1, 4, Long.MAX_VALUE);
                assertEquals(racing.size(), got.size());
                for (int i = 0; i < racing.size(); i++) {
                    assertArrayEquals(racing.get(i), got.get(i));
                }
            }
        }
    }

    private static byte[] entry(long group, long salt) {
        byte[] b = new byte[ENTRY];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (group * 31 + salt * 7 + i);
        }
        return b;
    }
}
