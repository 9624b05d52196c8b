package io.varve.core.ingest;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Each level reaches the kernel: read back from the thread's own {@code /proc} entry (Linux only). */
class CpuPriorityTest {

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_IDLE = 5;

    /** The thread's nice value and scheduling policy, fields 19 and 41 of {@code /proc/thread-self/stat}. */
    private record Scheduling(int nice, int policy) {
    }

    private static Scheduling current() throws IOException {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        // The name (field 2) is in parentheses and may hold spaces: count fields from after it.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return new Scheduling(Integer.parseInt(fields[19 - 3]), Integer.parseInt(fields[41 - 3]));
    }

    /** Applies the level on a new thread and returns what the thread reads of itself afterwards. */
    private static Scheduling appliedOnNewThread(CpuPriority priority) throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().start(() -> {
            try {
                assertTrue(priority.applyToCurrentThread(), "applied " + priority);
                result.set(current());
            } catch (Throwable t) {
                result.set(t);
            }
        });
        thread.join();
        if (result.get() instanceof Throwable t) {
            throw new AssertionError(t);
        }
        return (Scheduling) result.get();
    }

    private static void assumeLinux() {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux"), "Linux only");
    }

    @Test
    void idleSetsTheIdlePolicyOnThatThreadOnly() throws Exception {
        assumeLinux();
        Scheduling before = current();
        assertEquals(SCHED_IDLE, appliedOnNewThread(CpuPriority.IDLE).policy());
        assertEquals(before, current(), "the calling thread is unchanged");
    }

    @Test
    void lowSetsNice19KeepingTheNormalPolicy() throws Exception {
        assumeLinux();
        Scheduling low = appliedOnNewThread(CpuPriority.LOW);
        assertEquals(19, low.nice());
        assertEquals(SCHED_OTHER, low.policy());
    }

    @Test
    void normalChangesNothing() throws Exception {
        assumeLinux();
        assertEquals(current(), appliedOnNewThread(CpuPriority.NORMAL));
    }
}
