package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The child-JVM launcher: SIGKILL loses none of the lines the child wrote before it died. */
class ChildJvmTest {

    /** Prints 0, 1, 2, ... to stdout, and each number to stderr only after it went to stdout. */
    public static final class Counter {
        public static void main(String[] args) {
            PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
            for (long n = 0; ; n++) {
                out.println(n);
                System.err.println(n);
            }
        }
    }

    @Test
    void aKilledChildsLinesAreAllDelivered(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 3; round++) {
            Path stderr = dir.resolve("err" + round);
            List<String> lines = new CopyOnWriteArrayList<>();
            CountDownLatch running = new CountDownLatch(1000);
            ChildJvm child = ChildJvm.start(Counter.class, List.of(), stderr, line -> {
                lines.add(line);
                running.countDown();
            });
            assertTrue(running.await(60, TimeUnit.SECONDS), "the child printed " + lines.size() + " lines");
            child.kill();
            assertFalse(child.isAlive());
            // The JDK reports a process ended by signal N as exit code 128 + N: 137 is SIGKILL (9), not SIGTERM.
            assertEquals(137, child.awaitExit(10), "the child was not ended by SIGKILL");
            for (int i = 0; i < lines.size(); i++) {
                assertEquals(Integer.toString(i), lines.get(i), "line " + i);
            }
            List<String> written = Files.readAllLines(stderr);
            long lastWritten = Long.parseLong(written.get(written.size() - 2)); // the last may be cut short
            assertTrue(lines.size() - 1 >= lastWritten, "the child wrote " + lastWritten + " to stdout before it "
                    + "was killed, the parent received only up to " + (lines.size() - 1));
        }
    }
}
