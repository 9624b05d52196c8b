package io.varve.stress.enginekill;

import io.varve.base.CorruptionException;
import io.varve.core.ColumnFamily;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.stress.Bounded;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.ChildJvm;
import io.varve.stress.Corruptions;
import io.varve.stress.Failure;
import io.varve.stress.KillSchedule;
import io.varve.stress.KillCycle;
import io.varve.stress.Progress;
import io.varve.stress.Reproducer;
import io.varve.stress.Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * Kill -9 against engine-core: a child JVM ({@link EngineKillChild}) runs a mixed multi-threaded workload
 * through the public API (batches and transactions across three column families, synced and not, deletes,
 * range deletes, merges, ingestion of external tables, flushes, compactions, snapshots and iterators, 64 KiB
 * memtables) and is killed
 * with SIGKILL at a random moment (in a quarter of the cycles counted from its start, so it may die while
 * opening). The parent reopens the database in-process and judges it with {@link KillHistory}: it opens; every
 * value read is one a write put there; point reads and scans agree; and for each writer thread the state is
 * the one after all its acknowledged writes, plus or minus its one write in flight, whole. A child that opened
 * the database must have acknowledged a write by the time it is killed ({@link Progress}). The child also
 * takes checkpoints; the last one it finished before the kill must open and hold, per thread, a prefix of the
 * writes between those acknowledged when it started and those started when it ended. The database carries
 * on across cycles.
 */
public final class EngineKillCampaign implements Campaign {
    static final Duration OPEN_LIMIT = Duration.ofSeconds(60);

    private final Duration maxRun;
    private final Class<?> childMain;
    private final Duration progressLimit;

    public EngineKillCampaign(Duration maxRun) {
        this(maxRun, EngineKillChild.class, Progress.LIMIT);
    }

    /** With another child main (one that speaks {@link EngineKillChild}'s protocol) and no-progress limit. */
    EngineKillCampaign(Duration maxRun, Class<?> childMain, Duration progressLimit) {
        this.maxRun = maxRun;
        this.childMain = childMain;
        this.progressLimit = progressLimit;
    }

    @Override
    public String name() {
        return "engine-kill";
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path dir = settings.workDir().resolve("engine-kill");
        Path staging = settings.workDir().resolve("engine-kill-staging");
        Path afterKill = settings.workDir().resolve("engine-kill-after-kill");
        Path checkpoints = settings.workDir().resolve("engine-kill-checkpoints");
        Files.createDirectories(dir);
        long[][][] base = readState(dir); // a database left by an earlier run with the same directory
        KillSchedule kills = KillSchedule.replaying(settings.replay());
        long acknowledged = 0;
        long synced = 0;
        long transactions = 0;
        long merges = 0;
        long inFlightRecovered = 0;
        long inFlightLost = 0;
        long checkpointsJudged = 0;
        for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start); cycle++) {
            KillHistory history = new KillHistory();
            Path stderr = settings.workDir().resolve("engine-kill-child.err");
            Files.deleteIfExists(stderr);
            KillSchedule.Kill kill = kills.next(cycle, random, maxRun);
            long childSeed = kill.workloadSeed();
            String outcome;
            try (ChildJvm child = ChildJvm.start(childMain, List.of(dir.toString(), staging.toString(),
                    Long.toString(childSeed), Long.toString(cycle), checkpoints.toString()), stderr, history::line)) {
                String failed = KillCycle.runUntilKilled(child, history, kill, OPEN_LIMIT, progressLimit,
                        stderr, "the database");
                if (failed != null) {
                    report.failure(fail(settings, kills, cycle, childSeed, failed, history, dir, stderr));
                    break;
                }
                outcome = history.ready() ? "killed" : "killed-before-open";
            }
            // The reopen below changes the directory (a new manifest, replayed logs flushed): keep what the kill
            // left, for a reproducer.
            Corruptions.copyDirectory(dir, afterKill);
            String problem = history.protocolError();
            if (problem == null && !history.childErrors().isEmpty()) {
                problem = "the child saw: " + history.childErrors().getFirst();
            }
            long[][][] actual = null;
            if (problem == null) {
                try {
                    actual = Bounded.call("reopen", OPEN_LIMIT, () -> readState(dir));
                } catch (Exception e) {
                    problem = e instanceof CorruptionException c ? "reopen refused: " + c.getMessage() : e.toString();
                }
            }
            int recoveredInFlight = 0;
            for (int t = 0; problem == null && t < KillSpace.THREADS; t++) {
                KillHistory.ThreadVerdict v = history.judge(t, cycle, base[t], actual[t]);
                if (!v.ok()) {
                    problem = v.problem();
                } else if (v.inFlightRecovered()) {
                    recoveredInFlight++;
                }
            }
            long checkpoint = history.lastCheckpoint();
            if (problem == null && checkpoint > 0) {
                Path last = checkpoints.resolve(EngineKillChild.checkpointName(checkpoint));
                try {
                    long[][][] held = Bounded.call("checkpoint open", OPEN_LIMIT, () -> readState(last));
                    for (int t = 0; problem == null && t < KillSpace.THREADS; t++) {
                        problem = history.judgeCheckpoint(t, cycle, base[t], held[t]);
                    }
                    checkpointsJudged++;
                } catch (Exception e) {
                    problem = "checkpoint " + checkpoint + " did not open: " + e;
                }
            }
            if (problem != null) {
                report.failure(fail(settings, kills, cycle, childSeed, problem, history, dir, stderr));
                break;
            }
            report.cycle(outcome);
            acknowledged += history.acknowledged();
            synced += history.acknowledgedSynced();
            transactions += history.acknowledgedTransactions();
            merges += history.acknowledgedMerges();
            inFlightRecovered += recoveredInFlight;
            inFlightLost += history.inFlight() - recoveredInFlight;
            base = actual;
            settings.progress(String.format("%s cycle %d: killed %d ms %s, %d writes acknowledged (%d synced), "
                    + "%d in flight of which %d recovered%s", name(), cycle, kill.delayMillis(),
                    kill.fromStart() ? "after start" : "after open", history.acknowledged(), history.acknowledgedSynced(),
                    history.inFlight(), recoveredInFlight, checkpoint > 0 ? ", checkpoint " + checkpoint + " held a "
                            + "prefix" : ""));
        }
        report.finished((System.nanoTime() - start) / 1_000_000);
        settings.progress(String.format("%s: %d writes acknowledged (%d synced or ingested, %d transactions, %d "
                + "merge operands in all), all recovered; of the writes in flight at a kill %d recovered whole, %d "
                + "absent whole; %d checkpoints judged", name(), acknowledged, synced, transactions, merges,
                inFlightRecovered, inFlightLost, checkpointsJudged));
        return report;
    }

    /**
     * Opens the database and reads every family by a full scan and by point reads of every key of the space,
     * which must agree: per thread, per family, per key, the state found ({@link KillMerge}: the version of
     * the last put if no merge followed it; {@link KillSpace#ABSENT} if none).
     */
    static long[][][] readState(Path dir) throws Exception {
        return readState(dir, KillSpace.options());
    }

    /** {@link #readState(Path)} with other options (another file system). */
    static long[][][] readState(Path dir, Options options) throws Exception {
        long[][][] state = new long[KillSpace.THREADS][][];
        for (int t = 0; t < KillSpace.THREADS; t++) {
            state[t] = KillSpace.emptyState();
        }
        try (Db db = Db.open(dir, options)) {
            for (int f = 0; f < KillSpace.FAMILIES.size(); f++) {
                Optional<ColumnFamily> cf = f == 0 ? Optional.of(db.defaultColumnFamily())
                        : db.columnFamily(KillSpace.FAMILIES.get(f));
                if (cf.isEmpty()) {
                    continue; // the first child was killed before it created the family
                }
                try (DbIterator it = db.iterator(ReadOptions.DEFAULT, cf.get())) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        int[] k = KillSpace.parseKey(it.key());
                        if (k == null) {
                            throw new IllegalStateException("the scan of " + KillSpace.FAMILIES.get(f)
                                    + " returned a key no write produced");
                        }
                        state[k[0]][f][k[1]] = state(k[0], f, k[1], it.value());
                    }
                }
                for (int t = 0; t < KillSpace.THREADS; t++) {
                    for (int i = 0; i <= KillSpace.MARKER; i++) {
                        byte[] value = db.get(cf.get(), KillSpace.key(t, i));
                        long read = value == null ? KillSpace.ABSENT : state(t, f, i, value);
                        if (read != state[t][f][i]) {
                            throw new IllegalStateException("a point read of " + KillSpace.FAMILIES.get(f) + "/"
                                    + new String(KillSpace.key(t, i), StandardCharsets.US_ASCII)
                                    + " disagrees with the scan");
                        }
                    }
                }
            }
        }
        return state;
    }

    private static long state(int thread, int family, int index, byte[] value) {
        Long v = KillSpace.stateOf(thread, family, index, value);
        if (v == null) {
            throw new IllegalStateException(KillSpace.FAMILIES.get(family) + "/"
                    + new String(KillSpace.key(thread, index), StandardCharsets.US_ASCII) + " holds " + value.length
                    + " bytes no write produced");
        }
        return v;
    }

    private Failure fail(Settings settings, KillSchedule kills, long cycle, long childSeed, String what,
            KillHistory history, Path dir, Path stderr) {
        Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle,
                what + " (child seed " + childSeed + ")", history.tail(), Map.of("db-after-kill", settings.workDir().resolve("engine-kill-after-kill"), "db-after-reopen",
                dir, "child.err", stderr), kills);
        settings.progress(name() + " cycle " + cycle + " FAILED: " + what);
        return new Failure(cycle, what, reproducer);
    }
}
