package io.varve.stress.raftlog;

import io.varve.base.LeakDetector;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.raftlog.RaftLogEngine;
import io.varve.raftlog.RaftLogOptions;
import io.varve.stress.Bounded;
import io.varve.stress.FaultSweep;
import io.varve.stress.FaultVerdicts;
import io.varve.stress.IoErrorCampaign;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * I/O errors at operation N against the raft log, in-process: the raft-log kill campaign's workload
 * ({@link RaftLogChild#inProcess}: 16 groups, appends, tail overwrites, compactions, state puts and deletes, a
 * third synced, a purge racing the writes every 150 batches) plus a reader checking every byte it reads, on a
 * {@link FaultInjectingFileSystem} over a {@link MemFileSystem}. Each cycle writes a fixed number of batches
 * and fails the file system's N-th operation from the open on, once or forever; N sweeps the operation count
 * of fault-free calibration cycles ({@link FaultSweep}), as engine-core's {@code EngineIoErrorCampaign}
 * does. Each cycle checks:
 *
 * <ul>
 *   <li>every exception the workload, the open, the close or the probe write sees is an {@link IOException} or
 *       {@link UncheckedIOException} carrying the injected failure; no read returns bytes no write made;</li>
 *   <li>fail-stop: after the writer or the purger met a failure, one more write (the probe) must be
 *       refused with it as the cause; the probe is also how a failure nobody met shows itself, and only a
 *       failed read (which the engine retries when the entry moved) may go unseen;</li>
 *   <li>no hang: the open, the workload, each of its threads after it is told to stop, the close and the
 *       reopen end within a deadline ({@link Bounded});</li>
 *   <li>nothing leaks: after close no file handle or lock the log opened (it registers each with the leak
 *       detector while detection is on, which the campaign turns on) is
 *       left open, and no recovery thread outlives the open;</li>
 *   <li>after healing the disk and a simulated machine crash (unsynced bytes, and in some cycles unsynced
 *       names, lost), the reopened log equals the state after a prefix of the cycle's batches that holds every
 *       batch up to the last acknowledged synced one, or every acknowledged one if the cycle met no error and
 *       the close synced ({@link AckHistory}).</li>
 * </ul>
 * The log carries on across cycles, so later opens recover what earlier failures and crashes left.
 */
public final class RaftLogIoErrorCampaign extends IoErrorCampaign<RaftLogIoErrorCampaign.CycleResult> {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final Path DIR = Path.of("/raftlog-io-errors/log");
    /** The kinds of failure the engine may absorb: a read it retries because the entry moved meanwhile. */
    private static final Set<String> READS = Set.of("openReadable", "read", "map");

    private final int batches;
    private Disk store;
    /** The log's state after the last passed cycle, which the next cycle's reopen is judged against. */
    private LogModel base;

    /** @param batches how many batches each cycle's writer writes unless a failure ends it sooner */
    public RaftLogIoErrorCampaign(int batches) {
        this.batches = batches;
    }

    @Override
    public String name() {
        return "raftlog-io-errors";
    }

    @Override
    protected FaultInjectingFileSystem prepare() {
        LeakDetector.enable();
        MemFileSystem disk = new MemFileSystem();
        FaultInjectingFileSystem faults = new FaultInjectingFileSystem(disk);
        store = new Disk(disk, faults,
                RaftLogStressOptions.options().withFileSystem(faults));
        base = new LogModel();
        return faults;
    }

    @Override
    protected void passed(CycleResult result) {
        base = result.state;
    }

    @Override
    protected String writesAre() {
        return "batches";
    }

    private record Disk(MemFileSystem disk, FaultInjectingFileSystem faults, RaftLogOptions options) {
    }

    /** What one cycle did; {@code problem} is null if it passed. */
    record CycleResult(String outcome, String problem, long operations, List<String> injected,
            LogModel state, AckHistory history, int recovered) implements IoErrorCampaign.CycleResult {
        @Override
        public List<String> logTail() {
            return history.tail();
        }

        @Override
        public Writes writes() {
            return new Writes(history.started(), history.acknowledged(), history.mustSurvive(), recovered);
        }
    }

    /** What the cycle's callers met: every exception, and who met them. */
    private static final class Seen {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final AtomicInteger byWorkload = new AtomicInteger();
        final AtomicBoolean writePathFailed = new AtomicBoolean();
        boolean byProbe;
        boolean byClose;

        void workload(Throwable e) {
            errors.add(e);
            byWorkload.incrementAndGet();
            if (!Thread.currentThread().getName().equals(RaftLogChild.READER)) {
                writePathFailed.set(true);
            }
        }
    }

    @Override
    protected CycleResult cycle(long cycle, long n, Random random) throws InterruptedException {
        long seed = random.nextLong();
        // Versions are (epoch << 32 | batch): positive and rising from cycle to cycle, calibration included.
        long epoch = cycle + CALIBRATION_CYCLES + 1;
        FaultInjectingFileSystem faults = store.faults();
        long firstOperation = faults.operationCount();
        int injectedBefore = faults.injectedFailures().size();
        Set<LeakDetector.Handle> leakedBefore = Collections.newSetFromMap(new IdentityHashMap<>());
        leakedBefore.addAll(LeakDetector.openOwnedBy(DIR.toString()));
        AckHistory history = new AckHistory();
        Seen seen = new Seen();
        String stage = "open";
        String problem = null;
        RaftLogEngine engine = null;
        try {
            engine = Bounded.call("open", LIMIT, () -> RaftLogEngine.open(DIR, store.options()));
            RaftLogEngine opened = engine;
            stage = "workload";
            RaftLogChild workload = RaftLogChild.inProcess(engine, epoch, history::line, seen::workload, batches);
            List<Thread> threads = workload.start(seed);
            if (!workload.awaitEnd(LIMIT)) {
                problem = "the workload's writer neither wrote its " + batches + " batches nor failed within "
                        + LIMIT.toSeconds() + " s";
            }
            workload.stop();
            for (Thread thread : threads) {
                if (!thread.join(LIMIT)) {
                    problem = "the workload's " + thread.getName() + " thread still runs " + LIMIT.toSeconds()
                            + " s after it was told to stop";
                }
            }
            if (problem == null) {
                problem = probe(workload, seen, random.nextBoolean());
            }
            stage = "close";
            Bounded.call("close", LIMIT, () -> {
                opened.close();
                return null;
            });
            if (seen.errors.isEmpty()) {
                history.allAcknowledgedDurable(); // a close without error syncs
            }
        } catch (Bounded.HangException e) {
            problem = e.getMessage();
        } catch (Exception e) {
            seen.errors.add(e);
            seen.byClose = stage.equals("close");
            if (stage.equals("workload")) {
                seen.byClose = closeQuietly(engine, seen.errors);
            }
        }
        List<String> injected = injectedSince(faults, injectedBefore);
        long operations = faults.operationCount() - firstOperation;
        if (problem == null) {
            problem = FaultVerdicts.unexpected(seen.errors);
        }
        if (problem == null && history.protocolError() != null) {
            problem = history.protocolError();
        }
        if (problem == null) {
            problem = silentFailure(seen.errors, injected);
        }
        if (problem == null) {
            problem = FaultVerdicts.leaks(DIR.toString(), leakedBefore);
        }
        if (problem == null) {
            problem = recoveryThreadsEnded();
        }
        String outcome = outcome(stage, seen, injected);
        if (problem != null) {
            return new CycleResult(outcome, problem, operations, injected, null, history, -1);
        }
        faults.heal();
        int crash = random.nextInt(3);
        switch (crash) {
            case 0 -> store.disk().crash();
            case 1 -> store.disk().crash(random);
            default -> store.disk().crashKeepingSomeNames(random);
        }
        String context = " (crash " + List.of("dropping all unsynced data", "keeping random unsynced bytes",
                "keeping random unsynced bytes and names").get(crash) + "; the cycle saw "
                + seen.errors.stream().map(FaultVerdicts::describe).toList() + ")";
        LogModel actual;
        try {
            actual = Bounded.call("reopen", LIMIT, () -> {
                try (RaftLogEngine reopened = RaftLogEngine.open(DIR, store.options())) {
                    return LogModel.readFrom(reopened);
                }
            });
        } catch (Exception e) {
            return new CycleResult(outcome, "reopen after the crash: " + FaultVerdicts.describe(e) + context,
                    operations, injected, null, history, -1);
        }
        int k = history.matchingPrefix(base, actual);
        if (k < 0) {
            problem = "the recovered log is the state after no allowed prefix of the " + history.started()
                    + " batches (the first " + history.mustSurvive() + " had to survive): "
                    + history.required(base).differences(actual) + context;
        }
        if (problem == null) {
            problem = FaultVerdicts.leaks(DIR.toString(), leakedBefore);
        }
        return new CycleResult(outcome, problem, operations, injected, actual, history, k);
    }

    /**
     * One more write after the workload stopped, synced or not ({@code sync}: a synced one leaves the close
     * nothing to sync, an unsynced one leaves it the sync that makes the cycle durable); null or the problem.
     * Once the writer or the purger met a failure the engine is failed and must refuse it with that failure as
     * the cause (the refusal joins {@code errors}, where {@link FaultVerdicts#unexpected} checks it carries the
     * injected one). After only a failed read
     * the engine stays writable: the write may succeed, or fail on a disk that fails forever.
     *
     * <p>When a failure hit after the workload's last call and nobody met it, the probe is how a caller would
     * learn of it, so its refusal counts as a caller seeing it; if it is accepted, {@link #silentFailure}
     * reports the failure as swallowed.
     */
    private static String probe(RaftLogChild workload, Seen seen, boolean sync) {
        try {
            workload.writeOneMore(sync);
        } catch (Exception e) {
            seen.errors.add(e);
            seen.byProbe = true;
            return null;
        }
        if (seen.writePathFailed.get()) {
            return "the engine accepted a write after a write or purge had failed: it must refuse every write "
                    + "once one failed";
        }
        return null;
    }

    /** Whether the close threw. */
    private static boolean closeQuietly(RaftLogEngine engine, List<Throwable> errors) {
        try {
            Bounded.call("close", LIMIT, () -> {
                engine.close();
                return null;
            });
            return false;
        } catch (Exception e) {
            errors.add(e);
            return true;
        }
    }

    private static List<String> injectedSince(FaultInjectingFileSystem faults, int before) {
        List<String> all = faults.injectedFailures();
        return List.copyOf(all.subList(before, all.size()));
    }

    /**
     * How the injected failure showed: {@code open-failed}; {@code caller-saw-it} (a workload thread met it),
     * with {@code +close} if the close reported it too; {@code probe-saw-it} (only the probe write after the
     * workload met it); {@code close-reported} (only the close); {@code absorbed} (nobody: allowed only for
     * reads); {@code not-reached} (the cycle ended first).
     */
    private static String outcome(String stage, Seen seen, List<String> injected) {
        if (stage.equals("open") && !seen.errors.isEmpty()) {
            return "open-failed";
        }
        if (seen.byWorkload.get() > 0) {
            return seen.byClose ? "caller-saw-it+close" : "caller-saw-it";
        }
        if (seen.byProbe) {
            return seen.byClose ? "probe-saw-it+close" : "probe-saw-it";
        }
        if (seen.byClose) {
            return "close-reported";
        }
        return injected.isEmpty() ? "not-reached" : "absorbed";
    }

    /** Null if the injected failure reached someone or hit only reads (which the engine retries). */
    private static String silentFailure(List<Throwable> errors, List<String> injected) {
        if (!errors.isEmpty() || injected.isEmpty()) {
            return null;
        }
        List<String> harmful = harmful(injected);
        return harmful.isEmpty() ? null : "the injected failure of " + harmful + " reached no caller";
    }

    private static List<String> harmful(List<String> injected) {
        return injected.stream().filter(op -> !READS.contains(op)).toList();
    }

    /**
     * Null unless a recovery thread is still alive a deadline after the open or the close returned: open must
     * wait for its scans (a scan outliving a failed open would keep reading files the caller may replace).
     * Idle pool threads just ending are waited for.
     */
    private static String recoveryThreadsEnded() throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("raftlog-recovery-") && !t.join(LIMIT)) {
                return "the recovery thread " + t.getName() + " still runs " + LIMIT.toSeconds()
                        + " s after the open returned";
            }
        }
        return null;
    }
}
