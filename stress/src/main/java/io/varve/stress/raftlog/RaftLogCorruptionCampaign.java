package io.varve.stress.raftlog;

import io.varve.base.CorruptionException;
import io.varve.raftlog.RaftLogEngine;
import io.varve.raftlog.format.LogFileFormat;
import io.varve.raftlog.recovery.RecoveryMode;
import io.varve.stress.Bounded;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.Corruptions;
import io.varve.stress.Failure;
import io.varve.stress.Mutation;
import io.varve.stress.Reproducer;
import io.varve.stress.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Corruption fuzz against the raft-log store: builds a store with a workload (appends, overwrites,
 * compactions, puts, purges that rewrite and recycle files), then, one at a time, applies a single
 * {@link Mutation} to one of its files in a fresh copy, opens it in a recovery mode and reads everything, all
 * under a deadline. Allowed outcomes, per mode:
 * <ul>
 *   <li>any mode: a {@link CorruptionException} naming a file of the store and an offset, at open (except in
 *       {@code TOLERATE_ANY_CORRUPTION}, which never refuses) or at a read (entry payloads are checked when
 *       read);</li>
 *   <li>{@code ABSOLUTE_CONSISTENCY}: exactly the written state, except that the newest append file, when it is
 *       a recycled one, is cut at damage as in the default mode (a recycled file's torn tail cannot be told
 *       from its stale tail in any mode);</li>
 *   <li>{@code TOLERATE_TAIL_CORRUPTION}: exactly the written state, or, when the damaged file is the newest
 *       append file, the state after a prefix of the batches (its tail was cut);</li>
 *   <li>{@code TOLERATE_ANY_CORRUPTION}: any state whose every byte read is one written there.</li>
 * </ul>
 * Never: bytes that no write put there, another exception type, a hang, a state that never existed. In
 * particular, damage the tail rule must not cut (in the newest append file before the last purge synced it, or
 * in the newest rewrite file over a commit whose purge deleted files) must be refused, not opened.
 */
public final class RaftLogCorruptionCampaign implements Campaign {
    private static final Duration LIMIT = Duration.ofSeconds(20);
    private static final int BATCHES = 900;

    @Override
    public String name() {
        return "raftlog-corruption";
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path root = settings.workDir().resolve("raftlog-corruption");
        Path base = root.resolve("base");
        Path scratch = root.resolve("scratch");
        List<List<LogOp>> batches = build(base, random.nextLong());
        LogModel full = new LogModel();
        batches.forEach(full::apply);
        List<Path> files = new ArrayList<>();
        for (Path p : Corruptions.files(base)) {
            if (!p.getFileName().toString().equals("LOCK")) {
                files.add(p);
            }
        }
        Path newestAppend = null;
        Path newestRewrite = null;
        for (Path p : files) {
            if (p.getFileName().toString().endsWith(".append")) {
                newestAppend = p;
            }
            if (p.getFileName().toString().endsWith(".rewrite")) {
                newestRewrite = p;
            }
        }
        boolean newestRecycled = newestAppend != null && recycled(newestAppend);
        settings.progress(name() + ": " + batches.size() + " batches in " + files.size() + " files");
        for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start); cycle++) {
            Path victim = files.get(random.nextInt(files.size()));
            byte[] original = Files.readAllBytes(victim);
            Mutation mutation = Mutation.random(random, original.length);
            if (!mutation.changes(original)) {
                cycle--;
                continue;
            }
            RecoveryMode mode = switch (random.nextInt(4)) {
                case 0 -> RecoveryMode.ABSOLUTE_CONSISTENCY;
                case 1 -> RecoveryMode.TOLERATE_ANY_CORRUPTION;
                default -> RecoveryMode.TOLERATE_TAIL_CORRUPTION;
            };
            Corruptions.restore(base, scratch);
            Path damaged = scratch.resolve(victim.getFileName().toString());
            Files.write(damaged, mutation.apply(original));
            String what = victim.getFileName() + ", " + mutation + ", " + mode;
            String verdict = judge(scratch, mode, full, batches, victim.equals(newestAppend),
                    victim.equals(newestAppend) && newestRecycled, victim.equals(newestRewrite));
            // A scan still running after the open returned would crash this JVM (SIGBUS) when the scratch copy
            // is restored under it: open must have waited for its scans. Wait here anyway, and fail the cycle.
            if (awaitRecoveryThreads() && !verdict.startsWith("FAIL ")) {
                verdict = "FAIL a recovery scan kept running after the open returned";
            }
            if (verdict.startsWith("FAIL ")) {
                Corruptions.copyDirectory(base, scratch);
                Files.write(damaged, mutation.apply(original));
                Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle,
                        what + ": " + verdict, List.of("mutation: " + what, "original: " + victim),
                        Map.of("damaged-" + victim.getFileName(), damaged, "store", scratch));
                report.failure(new Failure(cycle, what + ": " + verdict.substring(5), reproducer));
                settings.progress(name() + " cycle " + cycle + " FAILED: " + what + ": " + verdict);
            } else {
                report.cycle(verdict);
            }
            if (cycle % 500 == 0) {
                settings.progress(name() + " cycle " + cycle + ": " + report.outcomes());
            }
        }
        Corruptions.deleteDirectory(root);
        report.finished((System.nanoTime() - start) / 1_000_000);
        return report;
    }

    /** The outcome's name, or "FAIL " and why. */
    /**
     * Waits for every {@code raftlog-recovery-} thread still alive to end (at most a minute each); whether one
     * of them was still scanning a file. Idle pool threads that are ending after an open do not count.
     */
    private static boolean awaitRecoveryThreads() throws InterruptedException {
        boolean scanning = false;
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            if (t.getName().startsWith("raftlog-recovery-") && t.isAlive()) {
                scanning |= Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().endsWith(".FileScanner"));
                t.join(Duration.ofMinutes(1));
            }
        }
        return scanning;
    }

    private static String judge(Path dir, RecoveryMode mode, LogModel full, List<List<LogOp>> batches,
            boolean newestAppend, boolean newestRecycled, boolean newestRewrite) {
        LogModel actual;
        try {
            actual = Bounded.call("open and read", LIMIT, () -> {
                RaftLogEngine engine;
                try {
                    engine = RaftLogEngine.open(dir, RaftLogStressOptions.options().withRecoveryMode(mode));
                } catch (CorruptionException e) {
                    throw new RefusedAtOpen(e);
                }
                try (engine) {
                    return LogModel.readFrom(engine);
                }
            });
        } catch (LogModel.WrongDataException e) {
            return "FAIL wrong data: " + e.getMessage();
        } catch (Bounded.HangException e) {
            return "FAIL hang: " + e.getMessage();
        } catch (Exception | Error e) {
            CorruptionException c = Corruptions.reported(e);
            if (c == null) {
                return "FAIL unexpected " + e;
            }
            if (!Corruptions.namesFileAndOffset(c, dir)) {
                return "FAIL corruption reported without file and offset: " + c.getMessage();
            }
            if (e instanceof RefusedAtOpen) {
                return mode == RecoveryMode.TOLERATE_ANY_CORRUPTION
                        ? "FAIL " + mode + " refused to open: " + c.getMessage() : "refused";
            }
            return "detected-at-read";
        }
        if (actual.equals(full)) {
            return "intact";
        }
        // A recycled file's torn tail looks like its stale tail, so every mode cuts it (docs/raftlog.md, "File
        // recycling"): absolute consistency keeps its promise only for files that are not recycled.
        boolean tailRule = mode == RecoveryMode.TOLERATE_TAIL_CORRUPTION
                || (mode == RecoveryMode.ABSOLUTE_CONSISTENCY && newestRecycled);
        if (mode == RecoveryMode.TOLERATE_ANY_CORRUPTION) {
            return "tolerated";
        }
        if (!tailRule) {
            return "FAIL opened with a different state: " + full.differences(actual);
        }
        if (newestRewrite) {
            // Cutting the rewrite queue can only drop a commit whose purge deleted nothing (else recovery
            // refuses): the append files then still give the written state.
            return "FAIL damage to the newest rewrite file changed the state: " + full.differences(actual);
        }
        if (!newestAppend) {
            return "FAIL damage outside the newest append file changed the state: " + full.differences(actual);
        }
        LogModel state = new LogModel();
        for (List<LogOp> batch : batches) {
            if (state.equals(actual)) {
                return "tail-cut";
            }
            state.apply(batch);
        }
        return "FAIL cutting the newest append file left a state that never existed: " + full.differences(actual);
    }

    private static boolean recycled(Path appendFile) throws Exception {
        byte[] header = Arrays.copyOf(Files.readAllBytes(appendFile), LogFileFormat.HEADER_SIZE);
        long sequence = Long.parseLong(appendFile.getFileName().toString().replace(".append", ""));
        return LogFileFormat.checkHeader(header, appendFile, LogFileFormat.QUEUE_APPEND, sequence).recycled();
    }

    /** A corruption the open reported, told apart from one a read reported. */
    private static final class RefusedAtOpen extends Exception {
        RefusedAtOpen(CorruptionException cause) {
            super(cause);
        }
    }

    /** Writes the workload's store; returns its batches in order. */
    private static List<List<LogOp>> build(Path dir, long seed) throws Exception {
        Corruptions.deleteDirectory(dir);
        Files.createDirectories(dir);
        Random random = new Random(seed);
        List<List<LogOp>> batches = new ArrayList<>();
        try (RaftLogEngine engine = RaftLogEngine.open(dir, RaftLogStressOptions.options())) {
            for (int n = 0; n < BATCHES; n++) {
                List<LogOp> batch = RaftLogChild.nextBatch(engine, random, n);
                engine.write(LogOp.toBatch(batch), random.nextInt(4) == 0);
                batches.add(batch);
                // The last purge comes 20 batches before the end, inside the newest file: damage after the point
                // it synced is a torn tail and cut, damage before it is refused.
                if (n % 150 == 130) {
                    engine.purgeExpiredFiles();
                }
            }
        }
        return batches;
    }
}
