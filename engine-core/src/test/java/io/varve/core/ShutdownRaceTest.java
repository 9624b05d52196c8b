package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbFiles;
import io.varve.base.LeakDetector;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.VersionSet;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every public operation racing {@code close()} ends, within a bound, with success or the closed-state
 * {@link IllegalStateException}, never a hang, an I/O error or a freed-memory error, and the closed database
 * leaves nothing behind: no tracked thread, mapping or arena, no open table, no table file the manifest does
 * not list. Each test repeats the race with a seeded random interleaving (how much work each side does before
 * the race starts); a failure prints the seed.
 */
class ShutdownRaceTest {

    private static final int ROUNDS = 40;
    /** A hang detector, not a timing assertion: a healthy round takes milliseconds. */
    private static final long BOUND_SECONDS = 30;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes();
    }

    private static Options options(MemFileSystem fs) {
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
    }

    private static Db openWithData(MemFileSystem fs, Path dir, int keys, boolean flushed) throws IOException {
        Db db = Db.open(dir, options(fs));
        for (int i = 0; i < keys; i++) {
            db.put(key(i), new byte[100]);
        }
        if (flushed) {
            db.flush();
        }
        return db;
    }

    /** Success, or the closed state; anything else fails the test with the round's seed. */
    private static void assertClosedOrFine(Throwable outcome, long seed) {
        if (outcome == null) {
            return;
        }
        boolean closed = outcome instanceof IllegalStateException
                && outcome.getMessage() != null && outcome.getMessage().contains("database")
                && outcome.getMessage().contains("closed");
        if (!closed) {
            throw new AssertionError("seed " + seed + ": expected success or the closed exception", outcome);
        }
    }

    /** Runs {@code body} until it throws; returns what it threw (the closed exception, hopefully). */
    private Future<Throwable> untilClosed(CyclicBarrier start, Op body) {
        return threads.submit(() -> {
            start.await();
            try {
                while (true) {
                    body.run();
                }
            } catch (Throwable t) {
                return t;
            }
        });
    }

    private Future<Throwable> closeAfter(CyclicBarrier start, Db db, int spins) {
        return threads.submit(() -> {
            start.await();
            for (int i = 0; i < spins; i++) {
                Thread.onSpinWait();
            }
            try {
                db.close();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
    }

    private static void assertNothingLeft(Db db, Path dir, long seed) {
        assertEquals(0, DbTestAccess.tableCache(db).openCount(), "seed " + seed + ": open tables after close");
        List<LeakDetector.Handle> leaks = LeakDetector.openOwnedBy(dir.toString());
        assertTrue(leaks.isEmpty(), "seed " + seed + ": " + LeakDetector.describe(leaks));
    }

    @FunctionalInterface
    private interface Op {
        void run() throws Exception;
    }

    @Test
    void readsRacingCloseEndWithTheClosedException() throws Exception {
        Random seeds = new Random();
        for (int round = 0; round < ROUNDS; round++) {
            long seed = seeds.nextLong();
            Random random = new Random(seed);
            MemFileSystem fs = new MemFileSystem();
            Path dir = Path.of("/reads-" + round);
            Db db = openWithData(fs, dir, 500, random.nextBoolean());
            CyclicBarrier start = new CyclicBarrier(4);
            List<Future<Throwable>> outcomes = new ArrayList<>();
            outcomes.add(untilClosed(start, () -> db.get(key(random.nextInt(500)))));
            outcomes.add(untilClosed(start, () -> db.get(key(7))));
            outcomes.add(untilClosed(start, () -> {
                try (DbIterator it = db.iterator()) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        it.value();
                    }
                }
            }));
            outcomes.add(closeAfter(start, db, random.nextInt(200_000)));
            for (Future<Throwable> outcome : outcomes) {
                assertClosedOrFine(outcome.get(BOUND_SECONDS, TimeUnit.SECONDS), seed);
            }
            assertNothingLeft(db, dir, seed);
        }
    }

    @Test
    void stalledWritersWakeWithTheClosedException() throws Exception {
        Random seeds = new Random();
        for (int round = 0; round < 5; round++) {
            long seed = seeds.nextLong();
            Random random = new Random(seed);
            GatedTables fs = new GatedTables();
            Path dir = Path.of("/stall-" + round);
            // One waiting memtable is the limit: with flushes held at the gate, writers stop.
            Db db = Db.open(dir, Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                    .withWriteStallTriggers(1, 20, 36));
            int writers = 1 + random.nextInt(3);
            CyclicBarrier start = new CyclicBarrier(writers);
            List<Future<Throwable>> outcomes = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int first = w * 100_000;
                outcomes.add(threads.submit(() -> {
                    start.await();
                    try {
                        for (int i = first; ; i++) {
                            db.put(key(i), new byte[1000]);
                        }
                    } catch (Throwable t) {
                        return t;
                    }
                }));
            }
            while (DbTestAccess.stops(db) == 0) {
                Thread.onSpinWait();
            }
            Future<Throwable> closed = threads.submit(() -> {
                try {
                    db.close();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            // Still gated: the flush cannot end the stop, only close() can.
            for (Future<Throwable> outcome : outcomes) {
                assertClosedOrFine(outcome.get(BOUND_SECONDS, TimeUnit.SECONDS), seed);
            }
            fs.gate.countDown();
            assertClosedOrFine(closed.get(BOUND_SECONDS, TimeUnit.SECONDS), seed);
            assertNothingLeft(db, dir, seed);
        }
    }

    @Test
    void flushAndCompactRangeRacingCloseReportTheClosedState() throws Exception {
        Random seeds = new Random();
        for (int round = 0; round < ROUNDS; round++) {
            long seed = seeds.nextLong();
            Random random = new Random(seed);
            MemFileSystem fs = new MemFileSystem();
            Path dir = Path.of("/flush-" + round);
            Db db = openWithData(fs, dir, 300, false);
            CyclicBarrier start = new CyclicBarrier(4);
            int[] next = {1000};
            List<Future<Throwable>> outcomes = new ArrayList<>();
            outcomes.add(untilClosed(start, () -> {
                db.put(key(next[0]++), new byte[100]);
                db.flush();
            }));
            outcomes.add(untilClosed(start, () -> db.compactRange(null, null)));
            outcomes.add(untilClosed(start, db::flush));
            outcomes.add(closeAfter(start, db, random.nextInt(2_000_000)));
            for (Future<Throwable> outcome : outcomes) {
                assertClosedOrFine(outcome.get(BOUND_SECONDS, TimeUnit.SECONDS), seed);
            }
            assertNothingLeft(db, dir, seed);
        }
    }

    @Test
    void concurrentCompactRangesNeverCollideNorOrphanTables() throws Exception {
        Random seeds = new Random();
        for (int round = 0; round < 15; round++) {
            long seed = seeds.nextLong();
            Random random = new Random(seed);
            MemFileSystem fs = new MemFileSystem();
            Path dir = Path.of("/manual-" + round);
            Db db = Db.open(dir, options(fs));
            for (int batch = 0; batch < 3; batch++) {
                for (int i = 0; i < 400; i++) {
                    db.put(key(random.nextInt(2000)), new byte[200]);
                }
                db.flush();
            }
            int callers = 2 + random.nextInt(2);
            CyclicBarrier start = new CyclicBarrier(callers + 1);
            List<Future<Throwable>> outcomes = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                byte[] begin = random.nextBoolean() ? null : key(random.nextInt(1000));
                outcomes.add(threads.submit(() -> {
                    start.await();
                    try {
                        db.compactRange(begin, null);
                        return null;
                    } catch (Throwable t) {
                        return t;
                    }
                }));
            }
            boolean closeMeanwhile = random.nextBoolean();
            outcomes.add(closeMeanwhile ? closeAfter(start, db, random.nextInt(2_000_000))
                    : threads.submit(() -> {
                        start.await();
                        return null;
                    }));
            for (Future<Throwable> outcome : outcomes) {
                assertClosedOrFine(outcome.get(BOUND_SECONDS, TimeUnit.SECONDS), seed);
            }
            db.close();
            assertNothingLeft(db, dir, seed);
            assertEquals(Set.of(), unlistedTables(fs, dir), "seed " + seed + ": tables the manifest does not list");
            try (Db reopened = Db.open(dir, options(fs))) {
                reopened.get(key(1));
            }
        }
    }

    private static Set<Long> unlistedTables(MemFileSystem fs, Path dir) throws IOException {
        Set<Long> listed = new HashSet<>();
        for (TableMeta table : VersionSet.recover(fs, dir).tableList()) {
            listed.add(table.fileNumber());
        }
        Set<Long> unlisted = new HashSet<>();
        for (String name : fs.list(dir)) {
            OptionalLong number = DbFiles.parseNumber(name, DbFiles.TABLE_SUFFIX);
            if (number.isPresent() && !listed.contains(number.getAsLong())) {
                unlisted.add(number.getAsLong());
            }
        }
        return unlisted;
    }

    @Test
    void ingestionRacingCloseEndsWithTheClosedException() throws Exception {
        Random seeds = new Random();
        for (int round = 0; round < 20; round++) {
            long seed = seeds.nextLong();
            Random random = new Random(seed);
            MemFileSystem fs = new MemFileSystem();
            Path dir = Path.of("/ingest-" + round);
            Db db = openWithData(fs, dir, 200, random.nextBoolean());
            int files = 1 + random.nextInt(20);
            List<Path> external = new ArrayList<>();
            for (int f = 0; f < files; f++) {
                SortedMap<String, String> entries = new TreeMap<>();
                for (int i = 0; i < 20; i++) {
                    entries.put(String.format("ext-%03d-%03d", f, i), "v" + f);
                }
                external.add(IngestFixtures.external(fs, Path.of("/external-" + round + "-" + f + ".sst"),
                        VersionSet.DEFAULT_FAMILY_NAME, entries));
            }
            CyclicBarrier start = new CyclicBarrier(3);
            List<Future<Throwable>> outcomes = new ArrayList<>();
            outcomes.add(threads.submit(() -> {
                start.await();
                try {
                    for (Path file : external) {
                        db.ingestExternalFiles(List.of(file), IngestOptions.defaults());
                    }
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            }));
            outcomes.add(untilClosed(start, () -> db.put(key(random.nextInt(200)), new byte[100])));
            outcomes.add(closeAfter(start, db, random.nextInt(1_000_000)));
            for (Future<Throwable> outcome : outcomes) {
                assertClosedOrFine(outcome.get(BOUND_SECONDS, TimeUnit.SECONDS), seed);
            }
            assertNothingLeft(db, dir, seed);
            assertEquals(Set.of(), unlistedTables(fs, dir), "seed " + seed + ": tables the manifest does not list");
        }
    }
}
