package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failure's reproducer holds what replaying it needs: seed, cycle, the replay command, the log, the files. */
class ReproducerTest {

    @TempDir
    Path work;

    @Test
    void writesTheFailureTheLogTailAndCopiesOfFilesAndDirectories() throws Exception {
        Path db = Files.createDirectories(work.resolve("db").resolve("nested"));
        Files.writeString(db.resolve("000001.log"), "wal bytes");
        Path stderr = Files.writeString(work.resolve("child.err"), "stack trace");

        Path written = Reproducer.write(work.resolve("reproducers"), "engine-kill", 42, 7, "lost a write",
                List.of("W 0 1", "A 0"), Map.of("store", work.resolve("db"), "child.err", stderr,
                        "absent", work.resolve("never-created")));

        assertEquals(work.resolve("reproducers").resolve("engine-kill-seed42-cycle7"), written);
        String failure = Files.readString(written.resolve("failure.txt"));
        assertTrue(failure.contains("seed 42\ncycle 7\nfailure lost a write\n"), failure);
        assertTrue(failure.contains("replay: bin/stress engine-kill --seed 42"), failure);
        assertEquals(List.of("W 0 1", "A 0"), Files.readAllLines(written.resolve("oplog-tail.txt")));
        assertEquals("wal bytes", Files.readString(written.resolve("store").resolve("nested").resolve("000001.log")));
        assertEquals("stack trace", Files.readString(written.resolve("child.err")));
        assertTrue(Files.notExists(written.resolve("absent")), "a file that does not exist is skipped");
    }

    @Test
    void noRootMeansNoReproducer() {
        assertNull(Reproducer.write(null, "engine-kill", 1, 1, "x", List.of(), Map.of()));
    }
}
