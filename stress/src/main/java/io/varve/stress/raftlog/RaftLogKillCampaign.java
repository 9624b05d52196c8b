package io.varve.stress.raftlog;

import io.varve.base.CorruptionException;
import io.varve.raftlog.RaftLogEngine;
import io.varve.stress.Bounded;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.ChildJvm;
import io.varve.stress.Failure;
import io.varve.stress.KillSchedule;
import io.varve.stress.KillCycle;
import io.varve.stress.Progress;
import io.varve.stress.Reproducer;
import io.varve.stress.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Kill -9 against the raft-log store: a child JVM ({@link RaftLogChild}) writes to many groups and is killed
 * with SIGKILL at a random moment (in a quarter of the cycles possibly during its JVM start or recovery); the parent then reopens the store in-process (default recovery mode) and
 * checks, against the child's acknowledgements ({@link AckHistory}): the store opens, every byte read is one
 * that was written there, and the state is the one after a prefix of the child's batches that includes every
 * acknowledged batch, synced or not (a process kill loses nothing the kernel has). A child that opened the
 * store must have acknowledged a batch by the time it is killed ({@link Progress}), and any thread failure it
 * reports fails the cycle. The same store carries on across cycles, so later cycles recover logs that
 * earlier kills left behind.
 */
public final class RaftLogKillCampaign implements Campaign {
    static final Duration OPEN_LIMIT = Duration.ofSeconds(60);

    /** The longest a child runs before it is killed; the kill comes at a uniformly random moment before. */
    private final Duration maxRun;
    private final Class<?> childMain;
    private final Duration progressLimit;

    public RaftLogKillCampaign(Duration maxRun) {
        this(maxRun, RaftLogChild.class, Progress.LIMIT);
    }

    /** With another child main (one that speaks {@link RaftLogChild}'s protocol) and no-progress limit. */
    RaftLogKillCampaign(Duration maxRun, Class<?> child, Duration progressLimit) {
        this.maxRun = maxRun;
        this.childMain = child;
        this.progressLimit = progressLimit;
    }

    @Override
    public String name() {
        return "raftlog-kill";
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path dir = settings.workDir().resolve("raftlog-kill");
        Files.createDirectories(dir);
        KillSchedule kills = KillSchedule.replaying(settings.replay());
        LogModel base = new LogModel();
        try (RaftLogEngine initial = RaftLogEngine.open(dir, RaftLogStressOptions.options())) {
            base = LogModel.readFrom(initial); // a store left by an earlier run with the same directory
        }
        for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start); cycle++) {
            AckHistory history = new AckHistory();
            Path stderr = settings.workDir().resolve("raftlog-kill-child.err");
            Files.deleteIfExists(stderr);
            KillSchedule.Kill kill = kills.next(cycle, random, maxRun);
            long childSeed = kill.workloadSeed();
            String outcome;
            try (ChildJvm child = ChildJvm.start(childMain,
                    List.of(dir.toString(), Long.toString(childSeed), Long.toString(cycle)), stderr, history::line)) {
                String failed = KillCycle.runUntilKilled(child, history, kill, OPEN_LIMIT, progressLimit,
                        stderr, "the store");
                if (failed != null) {
                    report.failure(fail(settings, kills, cycle, childSeed, failed, history, dir, stderr));
                    break;
                }
                outcome = history.ready() ? "killed" : "killed-before-open";
            }
            history.processKilled();
            String problem = history.protocolError();
            if (problem == null && history.firstChildError() != null) {
                problem = "the child saw: " + history.firstChildError();
            }
            if (problem != null) {
                report.failure(fail(settings, kills, cycle, childSeed, problem, history, dir, stderr));
                break;
            }
            LogModel actual;
            try {
                actual = Bounded.call("reopen", OPEN_LIMIT, () -> {
                    try (RaftLogEngine engine = RaftLogEngine.open(dir, RaftLogStressOptions.options())) {
                        return LogModel.readFrom(engine);
                    }
                });
            } catch (Exception e) {
                String what = e instanceof CorruptionException c ? "reopen refused: " + c.getMessage()
                        : e.toString();
                report.failure(fail(settings, kills, cycle, childSeed, what, history, dir, stderr));
                break;
            }
            int k = history.matchingPrefix(base, actual);
            if (k < 0) {
                report.failure(fail(settings, kills, cycle, childSeed, "recovered state is no allowed prefix of the "
                        + history.started() + " batches (" + history.mustSurvive() + " had to survive): "
                        + history.required(base).differences(actual), history, dir, stderr));
                break;
            }
            report.cycle(outcome);
            base = actual;
            settings.progress(String.format("%s cycle %d: killed %d ms after %s, %d batches acknowledged, %d had "
                    + "to survive, recovered %d", name(), cycle, kill.delayMillis(), kill.fromStart() ? "start" : "open",
                    history.acknowledged(),
                    history.mustSurvive(), k));
        }
        report.finished((System.nanoTime() - start) / 1_000_000);
        return report;
    }

    private Failure fail(Settings settings, KillSchedule kills, long cycle, long childSeed, String what,
            AckHistory history, Path dir, Path stderr) {
        Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle,
                what + " (child seed " + childSeed + ")", history.tail(), Map.of("store", dir, "child.err", stderr),
                kills);
        return new Failure(cycle, what, reproducer);
    }
}
