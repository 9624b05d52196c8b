package io.varve.stress;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How long and where a campaign runs: it stops at {@code cycles} cycles (kills or mutations, whichever the
 * campaign counts) or when {@code duration} has passed, whichever comes first.
 *
 * @param workDir scratch space for the databases the campaign builds and damages (a real disk, not tmpfs)
 * @param reproducerDir where a failure's reproducer (seed, operation-log tail, damaged file) is written
 * @param progress where progress lines go (null: nowhere)
 * @param replay a kill campaign's {@link KillSchedule} file to kill by (null: kill at delays drawn from the seed)
 */
public record Settings(long cycles, Duration duration, long seed, Path workDir, Path reproducerDir,
        PrintStream progress, Path replay) {

    public Settings(long cycles, Duration duration, long seed, Path workDir, Path reproducerDir,
            PrintStream progress) {
        this(cycles, duration, seed, workDir, reproducerDir, progress, null);
    }

    public long deadlineNanos(long startNanos) {
        return startNanos + duration.toNanos();
    }

    public void progress(String line) {
        if (progress != null) {
            progress.println(line);
            progress.flush();
        }
    }
}
