package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@link LogBatch#truncateAfter}: Raft's suffix truncation without an append, alone and across reopen. */
class TruncateAfterTest {
    private static final Path DIR = Path.of("/truncate");
    private static final byte[] KEY = "hs".getBytes(StandardCharsets.UTF_8);

    private final MemFileSystem fs = new MemFileSystem();

    private RaftLogEngine open() throws IOException {
        return RaftLogEngine.open(DIR, RaftLogOptions.defaults().withFileSystem(fs));
    }

    private static List<byte[]> payloads(long from, int count) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(("e" + (from + i)).getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void dropsEntriesAfterTheKeptIndexOnly() throws IOException {
        try (RaftLogEngine engine = open()) {
            engine.write(new LogBatch().addEntries(7, 5, payloads(5, 6)), true);
            engine.write(new LogBatch().truncateAfter(7, 7), true);
            assertEquals(OptionalLong.of(5), engine.firstIndex(7));
            assertEquals(OptionalLong.of(7), engine.lastIndex(7));
            assertNull(engine.entry(7, 8));
            assertArrayEquals("e7".getBytes(StandardCharsets.UTF_8), engine.entry(7, 7));
            // The next append must continue right after the kept entry; one past it is a gap.
            assertThrows(IllegalArgumentException.class,
                    () -> engine.write(new LogBatch().addEntries(7, 9, payloads(9, 1)), true));
            engine.write(new LogBatch().addEntries(7, 8, List.of("new8".getBytes(StandardCharsets.UTF_8))), true);
        }
        try (RaftLogEngine engine = open()) {
            assertEquals(OptionalLong.of(8), engine.lastIndex(7));
            assertArrayEquals("new8".getBytes(StandardCharsets.UTF_8), engine.entry(7, 8));
            assertEquals(4, engine.entries(7, 5, 9, Long.MAX_VALUE).size());
        }
    }

    @Test
    void keptIndexAtOrPastTheLastChangesNothing() throws IOException {
        try (RaftLogEngine engine = open()) {
            engine.write(new LogBatch().addEntries(1, 1, payloads(1, 3)), true);
            engine.write(new LogBatch().truncateAfter(1, 3).truncateAfter(1, 100), true);
            assertEquals(OptionalLong.of(1), engine.firstIndex(1));
            assertEquals(OptionalLong.of(3), engine.lastIndex(1));
        }
    }

    @Test
    void keptIndexBelowTheFirstDropsAllEntriesButKeepsTheState() throws IOException {
        try (RaftLogEngine engine = open()) {
            engine.write(new LogBatch().addEntries(1, 10, payloads(10, 3)).put(1, KEY, new byte[] {1})
                    .addEntries(2, 10, payloads(10, 3)), true);
            engine.write(new LogBatch().truncateAfter(1, 4).truncateAfter(2, 0), true);
            assertTrue(engine.lastIndex(1).isEmpty());
            assertTrue(engine.firstIndex(2).isEmpty());
            assertArrayEquals(new byte[] {1}, engine.get(1, KEY));
            // A group with neither entries nor state no longer exists.
            assertEquals(List.of(1L), engine.groups());
            // An empty group accepts any first index again (a log restarting after a snapshot).
            engine.write(new LogBatch().addEntries(1, 50, payloads(50, 1)), true);
        }
        try (RaftLogEngine engine = open()) {
            assertEquals(OptionalLong.of(50), engine.firstIndex(1));
            assertEquals(List.of(1L), engine.groups());
        }
    }

    @Test
    void truncationInTheSameBatchAsAnAppendAppliesInOrder() throws IOException {
        try (RaftLogEngine engine = open()) {
            engine.write(new LogBatch().addEntries(3, 1, payloads(1, 5)), true);
            engine.write(new LogBatch().truncateAfter(3, 2).addEntries(3, 3, payloads(30, 1)).truncateAfter(3, 3),
                    true);
            assertEquals(OptionalLong.of(3), engine.lastIndex(3));
            assertArrayEquals("e30".getBytes(StandardCharsets.UTF_8), engine.entry(3, 3));
        }
    }

    @Test
    void rejectsIndexesOutsideTheIndexSpace() {
        LogBatch batch = new LogBatch();
        assertThrows(IllegalArgumentException.class, () -> batch.truncateAfter(1, -1));
        assertThrows(IllegalArgumentException.class, () -> batch.truncateAfter(1, Long.MAX_VALUE));
        assertTrue(batch.isEmpty());
    }

    @Test
    void survivesACrashOnceSynced() throws IOException {
        RaftLogEngine engine = open();
        engine.write(new LogBatch().addEntries(4, 1, payloads(1, 9)), true);
        engine.write(new LogBatch().truncateAfter(4, 6), true);
        fs.crash();
        EngineChecks.closeCrashed(engine);
        try (RaftLogEngine reopened = open()) {
            assertEquals(OptionalLong.of(6), reopened.lastIndex(4));
        }
    }
}
