package io.varve.stress;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The run of one kill cycle's child JVM up to its kill, shared by the kill campaigns whose child reports on
 * stdout when its store is open and what it acknowledges. The kill comes at the cycle's scheduled moment
 * ({@link KillSchedule.Kill}): in some cycles counted from the child's start, so it may hit its recovery, else
 * from when its store is open. Before that moment the cycle fails if the child does not open its store within
 * the open limit, or exits on its own (a crash of the workload); at that moment, if the child is open but has
 * acknowledged nothing, the kill waits for its first acknowledgement ({@link Progress}).
 */
public final class KillCycle {

    /** What the campaign learns of the child from its stdout. */
    public interface ChildReport {
        /** Whether the child has reported its store open. */
        boolean ready();

        /** Waits until the child reports its store open, at most {@code limit}; whether it did. */
        boolean awaitReady(Duration limit) throws InterruptedException;

        /** Told of every acknowledgement. */
        Progress progress();

        /** The first failure a thread of the child reported, or null. */
        String firstChildError();
    }

    private KillCycle() {
    }

    /**
     * Runs {@code child} until {@code kill}'s moment and kills it. Returns why the cycle fails, or null once the
     * child was killed as scheduled. {@code store} names what the child opens ("the database", "the store").
     */
    public static String runUntilKilled(ChildJvm child, ChildReport report, KillSchedule.Kill kill,
            Duration openLimit, Duration progressLimit, Path stderr, String store) throws InterruptedException {
        if (!kill.fromStart() && !report.awaitReady(openLimit)) {
            return "the child did not open " + store + " within " + openLimit.toSeconds() + " s: "
                    + firstLine(stderr);
        }
        if (child.exitedWithin(kill.delay())) {
            int code = child.awaitExit(10);
            String why = report.firstChildError() != null ? report.firstChildError() : firstLine(stderr);
            return "the child exited on its own (code " + code + "): " + why;
        }
        if (report.ready() && !report.progress().awaitFirst(progressLimit)) {
            return Progress.noProgress(progressLimit);
        }
        child.kill();
        return null;
    }

    /** The first line of the child's stderr, for a failure's one-line reason. */
    public static String firstLine(Path file) {
        try {
            return Files.readAllLines(file).stream().findFirst().orElse("(no output)");
        } catch (Exception e) {
            return "(unreadable: " + e + ")";
        }
    }
}
