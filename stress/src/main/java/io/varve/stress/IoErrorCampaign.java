package io.varve.stress;

import io.varve.base.fs.FaultInjectingFileSystem;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The driver an I/O-error campaign shares: three fault-free calibration cycles measure how many file-system
 * operations a cycle makes, then each cycle fails operation N of that count, once or forever, as
 * {@link FaultSweep} chooses, until the settings' cycles or time run out or a cycle finds a problem. A
 * subclass supplies the cycle itself (the workload, the checks, the crash and the reopen) and what it counts.
 *
 * <p>Cycles are numbered -3 to -1 for the calibration and from 1 for the sweep, so a subclass can derive
 * distinct, rising write versions from the number. The calibration keeps the most operations of its three
 * cycles, as the first runs cold (class loading, JIT) and may make only a few.
 *
 * @param <R> what one cycle found
 */
public abstract class IoErrorCampaign<R extends IoErrorCampaign.CycleResult> implements Campaign {
    /** Calibration cycles are numbered from minus this to -1. */
    protected static final int CALIBRATION_CYCLES = 3;

    /** What the driver needs of a cycle's result. */
    public interface CycleResult {
        /** Null if the cycle passed, else what went wrong. */
        String problem();

        /** How the injected failure showed (open-failed, caller-saw-it, absorbed...). */
        String outcome();

        /** How many file-system operations the cycle made. */
        long operations();

        /** The kinds of operation whose injected failure the cycle met, in order. */
        List<String> injected();

        /** The last lines of the cycle's operation log, for a reproducer. */
        List<String> logTail();

        /** What the cycle's workload wrote and what its reopen found. */
        Writes writes();
    }

    /**
     * Writes (or batches) of one cycle: how many the workload started, how many were acknowledged, how many of
     * those the durability contract required to survive the crash, and how many the reopen found.
     */
    public record Writes(long started, long acknowledged, long mustSurvive, long recovered) {
        Writes plus(Writes other) {
            return new Writes(started + other.started, acknowledged + other.acknowledged,
                    mustSurvive + other.mustSurvive, recovered + other.recovered);
        }
    }

    /** Sets up the disk and the starting state; the driver fails operations of the file system it returns. */
    protected abstract FaultInjectingFileSystem prepare() throws Exception;

    /**
     * Runs cycle {@code cycle} on the state the last passed cycle left; the file system is already told to
     * fail its {@code n}-th operation from now ({@code n} is 0 in a calibration cycle, which fails nothing).
     */
    protected abstract R cycle(long cycle, long n, Random random) throws Exception;

    /** Cycle {@code result} passed: the next cycle starts from the state it left. */
    protected abstract void passed(R result);

    /** What the workload's writes are called in progress lines: "writes", "batches". */
    protected abstract String writesAre();

    @Override
    public final CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        FaultInjectingFileSystem faults = prepare();
        long operations = 0;
        R calibration = null;
        for (long cycle = -CALIBRATION_CYCLES; cycle < 0; cycle++) {
            calibration = cycle(cycle, 0, random);
            if (calibration.problem() != null) {
                report.failure(failure(settings, cycle, calibration));
                report.finished((System.nanoTime() - start) / 1_000_000);
                return report;
            }
            passed(calibration);
            operations = Math.max(operations, calibration.operations());
        }
        settings.progress(name() + ": fault-free cycles made up to " + operations + " file-system operations, the "
                + "last one " + calibration.writes().acknowledged() + " " + writesAre());
        FaultSweep sweep = new FaultSweep(operations);
        FaultSweep.Tally tally = new FaultSweep.Tally();
        Writes writes = new Writes(0, 0, 0, 0);
        for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start); cycle++) {
            long n = sweep.operation(cycle);
            boolean forever = sweep.forever(cycle);
            faults.failAt(n, forever);
            R result = cycle(cycle, n, random);
            if (result.problem() != null) {
                settings.progress(name() + " cycle " + cycle + " (fail op " + n + (forever ? " forever" : " once")
                        + ") FAILED: " + result.problem());
                report.failure(failure(settings, cycle, result));
                break;
            }
            passed(result);
            writes = writes.plus(result.writes());
            report.cycle((forever ? "forever-" : "once-") + result.outcome());
            tally.add(n, operations, result.injected());
            if (cycle % 100 == 0) {
                settings.progress(name() + " cycle " + cycle + ": " + tally + "; " + figures(writes));
            }
        }
        report.finished((System.nanoTime() - start) / 1_000_000);
        settings.progress(name() + ": " + tally + "; " + figures(writes));
        return report;
    }

    private String figures(Writes writes) {
        return writesAre() + " started " + writes.started() + ", acknowledged " + writes.acknowledged()
                + ", required to survive " + writes.mustSurvive() + ", recovered " + writes.recovered();
    }

    private Failure failure(Settings settings, long cycle, R result) {
        Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle,
                result.problem() + " (injected: " + result.injected() + ")", result.logTail(), Map.of());
        return new Failure(cycle, result.problem(), reproducer);
    }
}
