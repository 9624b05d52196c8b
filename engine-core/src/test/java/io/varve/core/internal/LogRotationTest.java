package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.TestStates;
import io.varve.core.WalRecoveryMode;
import io.varve.core.WriteOptions;
import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.core.internal.wal.PredecessorRecord;
import io.varve.core.internal.wal.WalReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rotation with the old log's final fsync still pending. The log worker is held at its first spare-log
 * creation, so every rotation creates its log inline and no sealed log is synced in the background; flushes
 * are held too, so the logs are the only copy of the writes when the machine crashes.
 */
@Timeout(120)
class LogRotationTest {

    private static final Path DIR = Path.of("/rotation");
    /** Four of these fill a 64 KiB memtable (capacity 128 KiB with its slack): a rotation every four writes. */
    private static final int VALUE_BYTES = 30_000;
    /** Writes in the worker-failure workload; every third is synced. */
    private static final int WRITES = 14;

    private static Options options(io.varve.base.fs.FileSystem fs) {
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
    }

    /** A write under its own key, so the recovered state shows exactly which writes survived. */
    private static TestStates.Write write(int i, boolean sync) {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) i);
        return new TestStates.Write(List.of(Map.entry(TestStates.hex(new byte[] {(byte) i}), value)), sync);
    }

    /** Opens with the worker held at its first log creation and flushes held; returns once the worker waits. */
    private static DbImpl openHeld(LogWorkerFileSystem fs, WalRecoveryMode mode) throws Exception {
        fs.holdTables = true;
        fs.holdWorker = true;
        DbImpl db = (DbImpl) Db.open(DIR, options(fs).withWalRecovery(mode));
        assertTrue(fs.workerHeld.await(30, TimeUnit.SECONDS), "the log worker never started its first spare log");
        return db;
    }

    /** The machine dies: unsynced data goes, and the dead process's threads can touch nothing afterwards. */
    private static void crash(LogWorkerFileSystem fs, DbImpl db, Random keepSomeUnsynced) {
        if (keepSomeUnsynced == null) {
            fs.disk.crash();
        } else {
            fs.disk.crash(keepSomeUnsynced);
        }
        fs.dead = true;
        fs.workerReleased.countDown();
        fs.tables.countDown();
        try {
            db.close();
        } catch (RuntimeException expected) {
            // its handles belong to a dead process
        }
    }

    @Test
    void rotationsSwapInTheSpareLog() throws Exception {
        LogWorkerFileSystem fs = new LogWorkerFileSystem();
        fs.holdTables = true; // keeps every log; the held flushes are abandoned before closing
        List<TestStates.Write> writes = new ArrayList<>();
        DbImpl db = (DbImpl) Db.open(DIR, options(fs));
        try {
            for (int i = 0; i < 14; i++) {
                writes.add(write(i, false));
                db.write(writes.getLast().toBatch(), WriteOptions.DEFAULT);
                DbTestAccess.awaitLogWorker(db);
            }
            assertEquals(0, DbTestAccess.logsCreatedInline(db), "with the worker keeping up, no rotation creates a file");
            // The first log, three rotated in, and the next spare.
            assertEquals(5, logNumbers(fs.disk).size(), "logs " + logNumbers(fs.disk));
            fs.abandonHeldTables();
        } finally {
            closeAbandoned(db);
        }
        try (Db reopened = Db.open(DIR, options(new LogWorkerFileSystem(fs.disk)))) {
            assertEquals(writes.size(), TestStates.matchingPrefix(new TreeMap<>(), writes, 0,
                    TestStates.contents(reopened)));
        }
    }

    @Test
    void syncedWriteInANewLogSyncsTheSealedLogsFirst() throws Exception {
        LogWorkerFileSystem fs = new LogWorkerFileSystem();
        DbImpl db = openHeld(fs, WalRecoveryMode.POINT_IN_TIME);
        List<TestStates.Write> writes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            writes.add(write(i, i == 9));
            db.write(writes.getLast().toBatch(), writes.getLast().synced() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        }
        assertEquals(2, DbTestAccess.logsCreatedInline(db), "two rotations, both without a spare log");
        // Only the synced writer could have fsynced the two sealed logs: the worker is held.
        crash(fs, db, null);

        try (Db reopened = Db.open(DIR, options(new LogWorkerFileSystem(fs.disk)))) {
            assertEquals(writes.size(), TestStates.matchingPrefix(new TreeMap<>(), writes, 0,
                    TestStates.contents(reopened)), "every write before the synced one must survive");
        }
    }

    @Test
    void crashWithSealedLogsUnsyncedRecoversAPrefix() throws Exception {
        int holes = 0;
        int refused = 0;
        for (int seed = 0; seed < 60; seed++) {
            WalRecoveryMode mode = seed % 2 == 0
                    ? WalRecoveryMode.POINT_IN_TIME : WalRecoveryMode.TOLERATE_CORRUPTED_TAIL;
            LogWorkerFileSystem fs = new LogWorkerFileSystem();
            DbImpl db = openHeld(fs, mode);
            List<TestStates.Write> writes = new ArrayList<>();
            for (int i = 0; i < 14; i++) {
                writes.add(write(i, false));
                db.write(writes.getLast().toBatch(), WriteOptions.DEFAULT);
            }
            assertEquals(3, DbTestAccess.logsCreatedInline(db));
            crash(fs, db, new Random(seed));
            if (logCutShortBeforeLaterData(fs.disk)) {
                holes++;
            }
            int s = seed;
            WalRecoveryMode opened = mode;
            if (mode == WalRecoveryMode.TOLERATE_CORRUPTED_TAIL) {
                try (Db reopened = Db.open(DIR, options(new LogWorkerFileSystem(fs.disk)).withWalRecovery(mode))) {
                    int prefix = TestStates.matchingPrefix(new TreeMap<>(), writes, 0, TestStates.contents(reopened));
                    assertTrue(prefix >= 0, () -> "seed " + s + " (" + mode + "): recovered state is not a prefix");
                    continue;
                } catch (CorruptionException lostSectorBeforeKeptData) {
                    // A sector lost with later data kept is damage inside a log to this mode, as to RocksDB's
                    // kTolerateCorruptedTailRecords; the refusal changed nothing, so the default mode opens it.
                    refused++;
                    opened = WalRecoveryMode.POINT_IN_TIME;
                }
            }
            try (Db reopened = Db.open(DIR, options(new LogWorkerFileSystem(fs.disk)).withWalRecovery(opened))) {
                int prefix = TestStates.matchingPrefix(new TreeMap<>(), writes, 0, TestStates.contents(reopened));
                assertTrue(prefix >= 0, () -> "seed " + s + " (" + mode + "): recovered state is not a prefix");
            }
        }
        // Otherwise the test would not show that recovery stops at a cut predecessor.
        assertTrue(holes > 0, "no seed cut a sealed log short while a later log kept data");
        assertTrue(refused < 30, "the tail-tolerant mode refused every crash");
    }

    /**
     * Whether some log lost bytes it had when its successor began while the successor kept a batch: the case
     * where replaying everything would leave a hole.
     */
    private static boolean logCutShortBeforeLaterData(MemFileSystem disk) throws IOException {
        TreeMap<Long, Long> sizes = new TreeMap<>();
        for (String name : disk.list(DIR)) {
            OptionalLong n = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
            if (n.isPresent()) {
                sizes.put(n.getAsLong(), disk.size(DIR.resolve(name)));
            }
        }
        for (long number : sizes.keySet()) {
            Path path = DbFiles.log(DIR, number);
            try (ReadableFile file = disk.openReadable(path)) {
                WalReader reader = new WalReader(file, path, number);
                byte[] first = reader.next();
                PredecessorRecord.Link link = first == null ? null : PredecessorRecord.decode(first);
                if (link != null && sizes.containsKey(link.logNumber()) && sizes.get(link.logNumber()) < link.length()
                        && reader.next() != null) {
                    return true;
                }
            } catch (CorruptionException torn) {
                // a torn first or second record: no complete batch there
            }
        }
        return false;
    }

    /**
     * The worker finishes a spare log (numbered when it started) after rotations created logs of their own:
     * using it would put a lower-numbered log after higher ones, and recovery replays by number.
     */
    @Test
    void aSpareOutrunByInlineRotationsIsNotUsed() throws Exception {
        LogWorkerFileSystem fs = new LogWorkerFileSystem();
        DbImpl db = openHeld(fs, WalRecoveryMode.ABSOLUTE_CONSISTENCY);
        List<TestStates.Write> writes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            writes.add(write(i, false));
            db.write(writes.getLast().toBatch(), WriteOptions.DEFAULT);
        }
        assertEquals(2, DbTestAccess.logsCreatedInline(db));
        fs.holdWorker = false;
        fs.workerReleased.countDown();
        // The stale spare's directory sync, then its replacement's.
        assertTrue(fs.workerDirectorySyncs.tryAcquire(2, 30, TimeUnit.SECONDS));
        // One more rotation: with flushes held, a fourth sealed memtable would stop writes.
        for (int i = 10; i < 16; i++) {
            writes.add(write(i, i == 15));
            db.write(writes.getLast().toBatch(), writes.getLast().synced() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        }
        // Close with the flushes abandoned, so no log was obsoleted: every log but the newest (an unused spare)
        // holds data; stale spares were deleted.
        fs.abandonHeldTables();
        closeAbandoned(db);
        java.util.TreeSet<Long> logs = logNumbers(fs.disk);
        for (long n : logs.headSet(logs.last())) {
            assertTrue(fs.disk.size(DbFiles.log(DIR, n)) > 0, "log " + n + " of " + logs + " is empty");
        }

        try (Db reopened = Db.open(DIR, options(new LogWorkerFileSystem(fs.disk))
                .withWalRecovery(WalRecoveryMode.ABSOLUTE_CONSISTENCY))) {
            assertEquals(writes.size(), TestStates.matchingPrefix(new TreeMap<>(), writes, 0,
                    TestStates.contents(reopened)));
        }
    }

    @Test
    void spareLogLeftByACrashIsHarmless() throws Exception {
        LogWorkerFileSystem fs = new LogWorkerFileSystem();
        DbImpl db = (DbImpl) Db.open(DIR, options(fs));
        db.write(write(1, true).toBatch(), WriteOptions.SYNC);
        assertTrue(fs.workerDirectorySynced.await(30, TimeUnit.SECONDS));
        long spare = logNumbers(fs.disk).last();
        assertEquals(0, fs.disk.size(DbFiles.log(DIR, spare)), "the spare log holds nothing before it is used");
        crash(fs, db, null);

        try (Db reopened = Db.open(DIR, options(new LogWorkerFileSystem(fs.disk)))) {
            assertEquals(1, TestStates.matchingPrefix(new TreeMap<>(), List.of(write(1, true)), 0,
                    TestStates.contents(reopened)));
            assertTrue(logNumbers(fs.disk).first() > spare, "the spare was deleted and its number not reused: "
                    + logNumbers(fs.disk));
            reopened.put(new byte[] {2}, new byte[] {2});
        }
    }

    private static java.util.TreeSet<Long> logNumbers(MemFileSystem disk) throws IOException {
        java.util.TreeSet<Long> numbers = new java.util.TreeSet<>();
        for (String name : disk.list(DIR)) {
            DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX).ifPresent(numbers::add);
        }
        return numbers;
    }

    /**
     * Fails the log worker's N-th operation (creating or directory-syncing a spare log, fsyncing a sealed one),
     * for every N it reaches in the workload. The failure must reach a caller — a write or, if no write came
     * after it, close — the database must refuse writes afterwards, and recovery after a crash must give a
     * prefix holding every synced write.
     */
    @Test
    void logWorkerFailureAtEveryOperationFailsTheDatabase() throws Exception {
        LogWorkerFileSystem counting = new LogWorkerFileSystem();
        assertNull(workload(counting, new ArrayList<>()), "the workload fails without faults");
        long operations = counting.workerOperations();
        // A spare at open (a creation and a directory sync), then for each of four rotations a spare and the
        // sealed log's fsync: fewer fsyncs if a synced writer got there first, and no spare after the last
        // rotation (the flush's) if close stops the worker first.
        assertTrue(operations >= 8, "the workload should rotate a few times: " + operations);
        for (long n = 1; n <= operations + 2; n++) {
            LogWorkerFileSystem fs = new LogWorkerFileSystem();
            fs.failWorkerOperation(n);
            List<TestStates.Write> acknowledged = new ArrayList<>();
            Throwable error = workload(fs, acknowledged);
            String context = "worker failure at its operation " + n;
            if (fs.workerFaultInjected) {
                assertNotNull(error, context + ": the failure never reached a caller");
                assertTrue(TestStates.causedBy(error, LogWorkerFileSystem.WorkerFault.class), context + ": unexpected error " + error);
            } else {
                assertNull(error, context + ": failed without an injected fault");
            }
            fs.disk.crash();
            try (Db db = Db.open(DIR, options(new LogWorkerFileSystem(fs.disk)))) {
                int lastSynced = 0;
                for (int i = 0; i < acknowledged.size(); i++) {
                    if (acknowledged.get(i).synced()) {
                        lastSynced = i + 1;
                    }
                }
                // The write that got the error is in doubt (docs/durability.md, "Failed I/O is final"): it may
                // already be in the log, for instance when it waited for its sync while the worker failed.
                List<TestStates.Write> possible = new ArrayList<>(acknowledged);
                if (error != null && acknowledged.size() < WRITES) {
                    possible.add(write(acknowledged.size(), acknowledged.size() % 3 == 2));
                }
                assertTrue(TestStates.matchingPrefix(new TreeMap<>(), possible, lastSynced,
                        TestStates.contents(db)) >= 0,
                        context + ": recovered state is not a prefix holding every synced write");
            }
        }
    }

    /**
     * Writes with rotations (every third write synced), flushes, closes; returns the first error. Waits for
     * the log worker after each write, so every rotation finds its spare and the worker's operations come in
     * the same order in every run.
     */
    private static Throwable workload(LogWorkerFileSystem fs, List<TestStates.Write> acknowledged)
            throws IOException, InterruptedException {
        DbImpl db = (DbImpl) Db.open(DIR, options(fs));
        Throwable error = null;
        try {
            for (int i = 0; i < WRITES; i++) {
                TestStates.Write w = write(i, i % 3 == 2);
                db.write(w.toBatch(), w.synced() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                acknowledged.add(w);
                DbTestAccess.awaitLogWorker(db);
            }
            db.flush();
            // A completed flush makes every write durable: count them as synced for the prefix check.
            TestStates.Write last = acknowledged.getLast();
            acknowledged.set(acknowledged.size() - 1, new TestStates.Write(last.ops(), true));
        } catch (RuntimeException e) {
            error = e;
            assertThrows(RuntimeException.class, () -> db.put(new byte[] {1}, new byte[] {1}),
                    "a failed database must refuse writes");
        }
        return TestStates.closeKeepingFirstError(db, error);
    }

    /**
     * Closes a database whose held flushes were just abandoned: a flush still failing when close began is
     * reported by close, one that failed before it is not; either way it is the simulated abandonment.
     */
    private static void closeAbandoned(Db db) {
        try {
            db.close();
        } catch (java.io.UncheckedIOException e) {
            Throwable cause = e;
            boolean abandoned = false;
            while (cause != null && !abandoned) {
                abandoned = String.valueOf(cause.getMessage()).contains("held table creation abandoned");
                cause = cause.getCause();
            }
            assertTrue(abandoned, () -> "close failed with " + e);
        }
    }
}
