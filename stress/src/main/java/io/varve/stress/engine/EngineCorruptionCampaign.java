package io.varve.stress.engine;

import io.varve.base.CorruptionException;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.stress.Bounded;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.Corruptions;
import io.varve.stress.Failure;
import io.varve.stress.KnownDefect;
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
 * Corruption fuzz against engine-core through the public {@link Db} API. A workload (puts, deletes and
 * batches, some synced; automatic flushes of small memtables; an explicit flush and a full compaction; writes
 * after them that live only in the write-ahead log) builds a database and closes it. Then, one at a time, a
 * single {@link Mutation} is applied to one of its files (WAL, table, MANIFEST, CURRENT) in a fresh copy,
 * which is opened (default {@code POINT_IN_TIME} WAL recovery) and read in full, by point reads and a scan,
 * under a deadline.
 *
 * <p>Allowed: a {@link CorruptionException} naming a file of the database and an offset, from the open or as
 * the cause of what a read throws; or a state equal to the writes' state after a prefix that contains every
 * write the explicit flush put in tables, and all of them unless the damaged file is a WAL (whose damage
 * {@code POINT_IN_TIME} answers by keeping the writes before it). Never: a value no write produced, an
 * exception of another type, a hang. Outcomes matching a {@link KnownDefect} are counted under it.
 */
public final class EngineCorruptionCampaign implements Campaign {
    private static final Duration LIMIT = Duration.ofSeconds(20);
    private static final int KEYS = 600;
    private static final int WRITES = 4000;

    @Override
    public String name() {
        return "engine-corruption";
    }

    static Options options() {
        return Options.defaults().withWriteBufferSize(64 << 10);
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path root = settings.workDir().resolve("engine-corruption");
        Path base = root.resolve("base");
        Path scratch = root.resolve("scratch");
        EngineHistory history = EngineHistory.build(base, random.nextLong(), KEYS, WRITES);
        List<Path> files = new ArrayList<>();
        for (Path p : Corruptions.files(base)) {
            if (!p.getFileName().toString().equals("LOCK")) {
                files.add(p);
            }
        }
        settings.progress(name() + ": " + history.size() + " writes (" + history.inTables() + " flushed), files "
                + files.stream().map(p -> p.getFileName().toString()).toList());
        for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start); cycle++) {
            Path victim = files.get(random.nextInt(files.size()));
            byte[] original = Files.readAllBytes(victim);
            Mutation mutation = Mutation.random(random, original.length);
            if (!mutation.changes(original)) {
                cycle--;
                continue;
            }
            Corruptions.restore(base, scratch);
            Path damaged = scratch.resolve(victim.getFileName().toString());
            Files.write(damaged, mutation.apply(original));
            String what = victim.getFileName() + ", " + mutation;
            Judgement j = judge(scratch, history, FileKind.of(victim));
            if (j.defect != null) {
                report.knownDefect(j.defect);
            } else if (j.failure != null) {
                Corruptions.copyDirectory(base, scratch);
                Files.write(damaged, mutation.apply(original));
                Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle,
                        what + ": " + j.failure, List.of("mutation: " + what),
                        Map.of("damaged-" + victim.getFileName(), damaged, "db", scratch));
                report.failure(new Failure(cycle, what + ": " + j.failure, reproducer));
                settings.progress(name() + " cycle " + cycle + " FAILED: " + what + ": " + j.failure);
            } else {
                report.cycle(FileKind.of(victim).name().toLowerCase() + "-" + j.outcome);
            }
            if (cycle % 250 == 0) {
                settings.progress(name() + " cycle " + cycle + ": " + report.outcomes() + ", known defects "
                        + report.knownDefects());
            }
        }
        Corruptions.deleteDirectory(root);
        report.finished((System.nanoTime() - start) / 1_000_000);
        return report;
    }

    /** The kinds of file a database has, told by name. */
    enum FileKind {
        WAL, TABLE, MANIFEST, CURRENT, OTHER;

        static FileKind of(Path p) {
            String name = p.getFileName().toString();
            if (name.endsWith(".log")) {
                return WAL;
            }
            if (name.endsWith(".sst")) {
                return TABLE;
            }
            if (name.startsWith("MANIFEST")) {
                return MANIFEST;
            }
            return name.equals("CURRENT") ? CURRENT : OTHER;
        }
    }

    /** Exactly one of: an allowed outcome's name, a known defect, a failure. */
    record Judgement(String outcome, KnownDefect defect, String failure) {
        static Judgement ok(String outcome) {
            return new Judgement(outcome, null, null);
        }

        static Judgement known(KnownDefect defect) {
            return new Judgement(null, defect, null);
        }

        static Judgement fail(String why) {
            return new Judgement(null, null, why);
        }
    }

    static Judgement judge(Path dir, EngineHistory history, FileKind kind) {
        int[] state;
        try {
            state = Bounded.call("open and read", LIMIT, () -> {
                Db db;
                try {
                    db = Db.open(dir, options());
                } catch (Exception e) {
                    throw new RefusedAtOpen(e);
                }
                try (db) {
                    return readAll(db, history);
                }
            });
        } catch (EngineHistory.WrongValueException e) {
            return Judgement.fail("wrong data: " + e.getMessage());
        } catch (Bounded.HangException e) {
            return Judgement.fail("hang: " + e.getMessage());
        } catch (Exception | Error e) {
            Throwable cause = e instanceof RefusedAtOpen ? e.getCause() : e;
            CorruptionException c = Corruptions.reported(cause);
            if (c != null) {
                if (!Corruptions.namesFileAndOffset(c, dir)) {
                    return Judgement.fail("corruption reported without file and offset: " + c.getMessage());
                }
                return Judgement.ok(e instanceof RefusedAtOpen ? "refused" : "detected-at-read");
            }
            return Judgement.fail((e instanceof RefusedAtOpen ? "open threw " : "a read threw ") + cause);
        }
        int k = history.matchingPrefix(state);
        if (k == history.size()) {
            return Judgement.ok("intact");
        }
        if (k >= history.inTables() && kind == FileKind.WAL) {
            return Judgement.ok("prefix");
        }
        return Judgement.fail(k < 0 ? "the state is no prefix of the writes"
                : "opened with the state after " + k + " of " + history.size() + " writes ("
                        + history.inTables() + " were in tables)");
    }

    /** Every key's version (-1: absent), by point reads, cross-checked against a full scan. */
    private static int[] readAll(Db db, EngineHistory history) throws Exception {
        int[] state = new int[history.keys()];
        for (int key = 0; key < state.length; key++) {
            state[key] = history.versionOf(key, db.get(EngineHistory.key(key)));
        }
        int[] scanned = new int[state.length];
        Arrays.fill(scanned, -1);
        try (DbIterator it = db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                int key = EngineHistory.keyIndex(it.key());
                if (key < 0 || key >= state.length) {
                    throw new EngineHistory.WrongValueException("the scan returned a key never written");
                }
                scanned[key] = history.versionOf(key, it.value());
            }
        }
        if (!Arrays.equals(state, scanned)) {
            throw new EngineHistory.WrongValueException("the scan and the point reads disagree");
        }
        return state;
    }

    private static final class RefusedAtOpen extends Exception {
        RefusedAtOpen(Throwable cause) {
            super(cause);
        }
    }

    static void write(Db db, WriteBatch batch, boolean sync) {
        db.write(batch, sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
    }
}
