package io.varve.stress.enginekill;

import io.varve.base.LeakDetector;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ColumnFamily;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.stress.Bounded;
import io.varve.stress.FaultSweep;
import io.varve.stress.FaultVerdicts;
import io.varve.stress.IoErrorCampaign;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * I/O errors at operation N on the real stack, in-process: the engine kill campaign's workload (four writer
 * threads with batches, transactions, deletes, range deletes, merges and ingestions across three column
 * families, a maintenance thread flushing, compacting and syncing the log, a reader comparing snapshots) runs
 * on a {@link FaultInjectingFileSystem} over a {@link MemFileSystem}, with the engine's own background flushes,
 * compactions and log rotations. Each cycle fails the file system's N-th operation from the open on, once or
 * forever, N swept over the operation count of a fault-free run ({@link FaultSweep}); the workload's threads
 * and the engine's background work make each cycle's operations differ, so the sweep repeated meets new
 * ones. Each cycle checks:
 *
 * <ul>
 *   <li>every exception the workload, the open or the close sees is an {@link IOException} or
 *       {@link UncheckedIOException} carrying the injected failure; no read returns bytes no write made;</li>
 *   <li>no hang: the open, each workload thread after it is told to stop, the close and the reopen end within
 *       a deadline;</li>
 *   <li>nothing leaks: after close no resource the engine's {@link LeakDetector} tracks (arenas, table
 *       mappings, the engine's own threads) is left owned by the database;</li>
 *   <li>after healing the disk and a simulated machine crash (unsynced bytes, and in some cycles unsynced names,
 *       lost), the reopened database holds the state after a prefix of the writes holding every durable one
 *       ({@link CrashPrefixHistory}).</li>
 * </ul>
 * The database carries on across cycles, so later opens recover what earlier failures left.
 */
public final class EngineIoErrorCampaign extends IoErrorCampaign<EngineIoErrorCampaign.CycleResult> {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final Path ROOT = Path.of("/io-errors");
    private static final Path DIR = ROOT.resolve("db");
    private static final Path STAGING = ROOT.resolve("staging");
    private static final byte[] PROBE = "probe".getBytes(StandardCharsets.US_ASCII);

    private final Duration run;
    private MemFileSystem disk;
    private FaultInjectingFileSystem fs;
    private Options options;
    /** The database's state after the last passed cycle, which the next cycle's reopen is judged against. */
    private long[][][] base;

    /** @param run how long each cycle's workload runs unless a failure ends it sooner */
    public EngineIoErrorCampaign(Duration run) {
        this.run = run;
    }

    @Override
    public String name() {
        return "engine-io-errors";
    }

    @Override
    protected FaultInjectingFileSystem prepare() throws Exception {
        LeakDetector.enable();
        disk = new MemFileSystem();
        disk.createDirectories(STAGING);
        fs = new FaultInjectingFileSystem(disk);
        options = KillSpace.options().withFileSystem(fs);
        base = EngineKillCampaign.readState(DIR, options);
        return fs;
    }

    @Override
    protected void passed(CycleResult result) {
        base = result.state;
    }

    @Override
    protected String writesAre() {
        return "writes";
    }

    /** What one cycle did; {@code problem} is null if it passed. */
    record CycleResult(String outcome, String problem, long operations, List<String> injected, long[][][] state,
            CrashPrefixHistory history) implements IoErrorCampaign.CycleResult {
        @Override
        public List<String> logTail() {
            return history.tail();
        }

        @Override
        public Writes writes() {
            return new Writes(history.started(), history.acknowledged(), history.durable(), history.recovered());
        }
    }

    @Override
    protected CycleResult cycle(long cycle, long n, Random random) throws InterruptedException {
        long seed = random.nextLong();
        long firstOperation = fs.operationCount();
        // In the file system's own numbering, as closeStarted is: tells a failure injected into the close.
        long failingOperation = n == 0 ? Long.MAX_VALUE : firstOperation + n;
        int injectedBefore = fs.injectedFailures().size();
        Set<LeakDetector.Handle> leakedBefore = Collections.newSetFromMap(new IdentityHashMap<>());
        leakedBefore.addAll(LeakDetector.openOwnedBy(DIR.toString()));
        CrashPrefixHistory history = new CrashPrefixHistory();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        CountDownLatch firstError = new CountDownLatch(1);
        String stage = "open";
        long closeStarted = Long.MAX_VALUE;
        boolean closeReported = false;
        String problem = null;
        Db db = null;
        try {
            db = Bounded.call("open", LIMIT, () -> Db.open(DIR, options));
            Db opened = db;
            stage = "workload";
            List<ColumnFamily> families = Bounded.call("column families", LIMIT,
                    () -> EngineKillChild.families(opened));
            EngineKillChild workload = EngineKillChild.inProcess(db, families, disk, STAGING, cycle, history::line,
                    e -> {
                        errors.add(e);
                        firstError.countDown();
                    }, history);
            List<Thread> threads = workload.start(seed);
            // The run's length, cut short by the first error: after it the database is usually failed.
            firstError.await(run.toMillis(), TimeUnit.MILLISECONDS);
            workload.stop();
            for (Thread thread : threads) {
                if (!thread.join(LIMIT)) {
                    problem = "the workload's " + thread.getName() + " thread still runs " + LIMIT.toSeconds()
                            + " s after it was told to stop";
                }
            }
            if (problem == null) {
                boolean unseen = errors.isEmpty() && !harmful(fs.injectedFailures().subList(injectedBefore,
                        fs.injectedFailures().size())).isEmpty();
                problem = failedStateProbe(db, errors, unseen);
            }
            stage = "close";
            closeStarted = fs.operationCount();
            Bounded.call("close", LIMIT, () -> {
                opened.close();
                return null;
            });
        } catch (Bounded.HangException e) {
            problem = e.getMessage();
        } catch (Exception e) {
            errors.add(e);
            closeReported = stage.equals("close");
            if (stage.equals("workload") && db != null) {
                closeStarted = fs.operationCount();
                closeReported = closeQuietly(db, errors);
            }
        }
        List<String> injected = List.copyOf(fs.injectedFailures().subList(injectedBefore,
                fs.injectedFailures().size()));
        long operations = fs.operationCount() - firstOperation;
        if (problem == null) {
            problem = FaultVerdicts.unexpected(errors);
        }
        if (problem == null && !history.findings().isEmpty()) {
            problem = "the workload saw: " + history.findings().getFirst();
        }
        if (problem == null) {
            problem = silentFailure(errors, injected, failingOperation > closeStarted);
        }
        if (problem == null) {
            problem = FaultVerdicts.leaks(DIR.toString(), leakedBefore);
        }
        String outcome = outcome(errors, injected, stage, closeReported);
        if (outcome.equals("absorbed") && failingOperation > closeStarted) {
            outcome = "absorbed-in-close";
        }
        if (problem != null) {
            return new CycleResult(outcome, problem, operations, injected, null, history);
        }
        fs.heal();
        int crash = random.nextInt(3);
        switch (crash) {
            case 0 -> disk.crash();
            case 1 -> disk.crash(random);
            default -> disk.crashKeepingSomeNames(random);
        }
        String context = " (crash " + List.of("dropping all unsynced data", "keeping random unsynced bytes",
                "keeping random unsynced bytes and names").get(crash) + "; the workload saw "
                + errors.stream().map(FaultVerdicts::describe).toList() + ")";
        long[][][] actual;
        try {
            actual = Bounded.call("reopen", LIMIT, () -> EngineKillCampaign.readState(DIR, options));
        } catch (Exception e) {
            return new CycleResult(outcome, "reopen after the crash: " + e + context,
                    operations, injected, null, history);
        }
        problem = history.judge(cycle, base, actual);
        if (problem != null) {
            problem += context;
        }
        if (problem == null) {
            problem = FaultVerdicts.leaks(DIR.toString(), leakedBefore);
        }
        return new CycleResult(outcome, problem, operations, injected, actual, history);
    }

    /**
     * Null unless the database is in its failed state and still accepts a write: a failed database must refuse
     * every write with the original I/O failure as the cause. The probe's key is outside the workload's key
     * space, so a write wrongly accepted also fails the reopen's scan.
     *
     * <p>The probe also runs when {@code unseen}: the injected failure hit after the workload's last call (the
     * log worker preparing the next log, a flush) and nobody has seen it yet. A write is then how a caller
     * learns of it, so a refusal with the injected cause is counted as the caller seeing it; a write accepted
     * means the failure was swallowed, which {@link #silentFailure} reports.
     */
    private static String failedStateProbe(Db db, List<Throwable> errors, boolean unseen) {
        boolean failed = db.getLongProperty("background-errors") != 0;
        if (!failed && !unseen) {
            return null;
        }
        try {
            db.put(PROBE, PROBE);
            return failed ? "the database is in its failed state but accepted a write" : null;
        } catch (RuntimeException e) {
            if (e instanceof UncheckedIOException && FaultVerdicts.causedByInjection(e)) {
                if (unseen) {
                    errors.add(e);
                }
                return null;
            }
            return "the failed database refused a write with " + FaultVerdicts.describe(e);
        }
    }

    /** Whether the close threw. */
    private static boolean closeQuietly(Db db, List<Throwable> errors) {
        try {
            Bounded.call("close", LIMIT, () -> {
                db.close();
                return null;
            });
            return false;
        } catch (Exception e) {
            errors.add(e);
            return true;
        }
    }

    /**
     * How the injected failure showed: {@code open-failed}; {@code caller-saw-it} (an operation of the workload
     * threw it), with {@code +close} if the close reported it too; {@code close-reported} (only the close did);
     * {@code absorbed} (nobody saw it: allowed only for cleanup), {@code absorbed-in-close} (background work
     * that close waited for); {@code not-reached} (the cycle ended first).
     */
    private static String outcome(List<Throwable> errors, List<String> injected, String stage, boolean closeReported) {
        if (stage.equals("open") && !errors.isEmpty()) {
            return "open-failed";
        }
        if (errors.size() > (closeReported ? 1 : 0)) {
            return closeReported ? "caller-saw-it+close" : "caller-saw-it";
        }
        if (closeReported) {
            return "close-reported";
        }
        return injected.isEmpty() ? "not-reached" : "absorbed";
    }

    /**
     * Null if the injected failure reached someone, or only hit operations whose failure costs nothing but
     * space (deleting obsolete files, listing them to delete: retried at the next open), or hit background work
     * (a compaction, a flush) that close was waiting for: the engine takes such a failure for one that closing
     * caused and drops it with the work, which installed nothing, so nothing is lost (the reopen checks it).
     */
    private static String silentFailure(List<Throwable> errors, List<String> injected, boolean inClose) {
        if (!errors.isEmpty() || injected.isEmpty() || inClose) {
            return null;
        }
        List<String> harmful = harmful(injected);
        return harmful.isEmpty() ? null : "the injected failure of " + harmful + " reached no caller";
    }

    /** The injected failures that cost more than space: all but deleting and listing obsolete files. */
    private static List<String> harmful(List<String> injected) {
        return injected.stream().filter(op -> !op.equals("delete") && !op.equals("list")).toList();
    }
}
