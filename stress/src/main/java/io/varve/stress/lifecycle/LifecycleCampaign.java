package io.varve.stress.lifecycle;

import io.varve.base.LeakDetector;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.stress.Bounded;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.Corruptions;
import io.varve.stress.Failure;
import io.varve.stress.Reproducer;
import io.varve.stress.Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Open and close under load: each cycle opens one database, races writers, batch ingestion, point reads,
 * iterators (some at a snapshot), {@code syncWal}, {@code compactRange} and {@code flush} against a
 * {@code close()} from another thread at a random moment, and checks:
 *
 * <ul>
 *   <li>no hang: the open, the close and the end of every racing loop each within a deadline;</li>
 *   <li>every loop ends with the documented {@link IllegalStateException} ("... is closed"), nothing else,
 *       and no read returns bytes no write produced;</li>
 *   <li>nothing leaks: after close no descriptor (/proc/self/fd) or mapping (/proc/self/maps) of a file of
 *       the database, no {@code varve-} thread, no resource the engine's {@link LeakDetector} tracks;</li>
 *   <li>at the next open (the next cycle's, or one more after the last cycle) every acknowledged write is
 *       there, and the write each loop had in flight is there whole or not at all.</li>
 * </ul>
 */
public final class LifecycleCampaign implements Campaign {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Override
    public String name() {
        return "lifecycle";
    }

    static Options options() {
        return Options.defaults().withWriteBufferSize(64 << 10);
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path root = settings.workDir().resolve("lifecycle");
        Path dir = root.resolve("lifecycle-db");
        Path staging = root.resolve("staging");
        Corruptions.deleteDirectory(root);
        LeakDetector.enable();
        boolean proc = ProcessResources.available();
        List<Thread> foreignThreads = ProcessResources.threadsNamed("varve-", List.of());
        long[][] acknowledged = RacingWorkload.emptyState();
        long[][][] inFlight = new long[RacingWorkload.OWNERS][][];
        Map<String, Long> endings = new TreeMap<>();
        long operations = 0;
        long firstDescriptors = -1;
        for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start); cycle++) {
            String problem;
            Db db;
            long[][] found;
            try {
                db = Bounded.call("open", LIMIT, () -> Db.open(dir, options()));
                found = readState(db);
                problem = check(found, acknowledged, inFlight);
            } catch (Exception e) {
                report.failure(fail(settings, cycle, "open: " + e, List.of(), dir));
                break;
            }
            RacingWorkload workload = new RacingWorkload(db, staging, random.nextLong(), cycle, found);
            CountDownLatch done = new CountDownLatch(RacingWorkload.loops());
            workload.start(done);
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(300_000))); // the close's moment
            try {
                Bounded.call("close", LIMIT, () -> {
                    db.close();
                    return null;
                });
            } catch (Exception e) {
                problem = problem != null ? problem : "close: " + e;
            }
            if (!done.await(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                problem = problem != null ? problem : done.getCount() + " racing loops still running "
                        + LIMIT.toSeconds() + " s after close";
            }
            if (problem == null && !workload.findings().isEmpty()) {
                problem = workload.findings().getFirst();
            }
            if (problem == null) {
                problem = leaks(dir, proc, foreignThreads);
            }
            workload.endings().forEach((k, v) -> endings.merge(k, v.get(), Long::sum));
            operations += workload.operations();
            if (problem != null) {
                report.failure(fail(settings, cycle, problem, workload.findings(), dir));
                break;
            }
            acknowledged = workload.acknowledged();
            inFlight = workload.inFlight();
            if (proc) {
                long fds = ProcessResources.descriptorCount();
                firstDescriptors = firstDescriptors < 0 ? fds : firstDescriptors;
            }
            report.cycle("closed-under-load");
            if (cycle % 50 == 0) {
                settings.progress(name() + " cycle " + cycle + ": " + operations + " operations; loops ended by "
                        + endings);
            }
        }
        if (report.failures().isEmpty()) {
            // The last cycle's close is judged like every other: by an open that must find its writes.
            String problem;
            long[][] lastAcknowledged = acknowledged;
            long[][][] lastInFlight = inFlight;
            try {
                problem = Bounded.call("final open", LIMIT, () -> {
                    try (Db db = Db.open(dir, options())) {
                        return check(readState(db), lastAcknowledged, lastInFlight);
                    }
                });
            } catch (Exception e) {
                problem = "final open: " + e;
            }
            if (problem != null) {
                report.failure(fail(settings, report.cycles() + 1, problem, List.of(), dir));
            }
        }
        report.finished((System.nanoTime() - start) / 1_000_000);
        settings.progress(name() + ": " + operations + " operations raced close; loops ended by " + endings
                + (proc ? "; descriptors after the first cycle " + firstDescriptors + ", now "
                        + ProcessResources.descriptorCount() : "; /proc not available: leaks checked by the "
                        + "engine's LeakDetector only"));
        return report;
    }

    /** Every owner's keys: the version found, -1 if absent. */
    private static long[][] readState(Db db) {
        long[][] state = RacingWorkload.emptyState();
        for (int owner = 0; owner < RacingWorkload.OWNERS; owner++) {
            for (int i = 0; i < RacingWorkload.KEYS; i++) {
                byte[] v = db.get(RacingWorkload.key(owner, i));
                Long version = v == null ? Long.valueOf(-1) : RacingWorkload.versionOf(owner, i, v);
                if (version == null) {
                    throw new IllegalStateException("after reopen " + new String(RacingWorkload.key(owner, i),
                            StandardCharsets.US_ASCII) + " holds bytes no write produced");
                }
                state[owner][i] = version;
            }
        }
        return state;
    }

    /** Null if every owner's keys hold its acknowledged writes, plus or minus its write in flight, whole. */
    private static String check(long[][] found, long[][] acknowledged, long[][][] inFlight) {
        for (int owner = 0; owner < RacingWorkload.OWNERS; owner++) {
            boolean ok = Arrays.equals(found[owner], acknowledged[owner])
                    || inFlight[owner] != null && Arrays.equals(found[owner], inFlight[owner][0]);
            if (!ok) {
                return "after reopen owner " + owner + "'s keys are neither the acknowledged state nor that and the "
                        + "write in flight at close";
            }
        }
        return null;
    }

    private static String leaks(Path dir, boolean proc, List<Thread> foreignThreads) throws Exception {
        List<LeakDetector.Handle> tracked = LeakDetector.openOwnedBy(dir.getFileName().toString());
        if (!tracked.isEmpty()) {
            return "leaked after close: " + LeakDetector.describe(tracked);
        }
        List<Thread> threads = ProcessResources.threadsNamed("varve-", foreignThreads);
        if (!threads.isEmpty()) {
            return "threads alive after close: " + threads.stream().map(Thread::getName).toList();
        }
        if (proc) {
            List<String> fds = ProcessResources.descriptorsUnder(dir);
            if (!fds.isEmpty()) {
                return "descriptors open after close: " + fds;
            }
            List<String> maps = ProcessResources.mappingsUnder(dir);
            if (!maps.isEmpty()) {
                return "mappings left after close: " + maps;
            }
        }
        return null;
    }

    private Failure fail(Settings settings, long cycle, String what, List<String> findings, Path dir) {
        Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle, what, findings,
                Map.of("db", dir));
        settings.progress(name() + " cycle " + cycle + " FAILED: " + what);
        return new Failure(cycle, what, reproducer);
    }
}
