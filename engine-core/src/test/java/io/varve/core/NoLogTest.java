package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.DbFiles;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a database without a write-ahead log promises, case by case (docs/durability.md, "Without the log"). */
class NoLogTest {

    private static final Path DIR = Path.of("/nolog");

    private final MemFileSystem fs = new MemFileSystem();
    private final Options options = Options.defaults().withFileSystem(fs).withWriteAheadLog(false);

    @Test
    void writesNothingToTheLogs() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            for (int i = 0; i < 1000; i++) {
                db.put(key(i), new byte[100]);
            }
            db.flush();
            db.put(key(1000), new byte[100]);
            int seen = 0;
            for (String log : logs()) {
                long size;
                try {
                    size = fs.size(DIR.resolve(log));
                } catch (java.nio.file.NoSuchFileException obsolete) {
                    continue; // the flush made it obsolete and the reclaimer deleted it meanwhile
                }
                assertEquals(0, size, log);
                seen++;
            }
            assertTrue(seen > 0, "the current log exists, so the directory looks as it always does");
        }
    }

    @Test
    void refusesSyncedWrites() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            assertThrows(IllegalArgumentException.class, () -> db.put(WriteOptions.SYNC, db.defaultColumnFamily(),
                    key(1), value(1)));
            assertNull(db.get(key(1)));
        }
    }

    @Test
    void aCrashKeepsTheLastFlushAndNothingAfterIt() throws IOException {
        Db db = Db.open(DIR, options);
        db.put(key(1), value(1));
        db.flush();
        db.put(key(2), value(2));
        fs.crash();
        TestStates.closeAfterCrash(db);
        try (Db reopened = Db.open(DIR, options)) {
            assertArrayEquals(value(1), reopened.get(key(1)));
            assertNull(reopened.get(key(2)), "written after the last flush: only the memtable held it");
        }
    }

    @Test
    void syncWalFlushes() throws IOException {
        Db db = Db.open(DIR, options);
        db.put(key(1), value(1));
        db.syncWal();
        fs.crash();
        TestStates.closeAfterCrash(db);
        try (Db reopened = Db.open(DIR, options)) {
            assertArrayEquals(value(1), reopened.get(key(1)));
        }
    }

    @Test
    void closeFlushesTheMemtables() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            db.put(key(1), value(1));
        }
        fs.crash(); // after a clean close, nothing it acknowledged may depend on unsynced bytes
        try (Db reopened = Db.open(DIR, options)) {
            assertArrayEquals(value(1), reopened.get(key(1)));
        }
    }

    @Test
    void aCheckpointHoldsUnflushedWrites() throws IOException {
        Path copy = Path.of("/copy");
        try (Db db = Db.open(DIR, options)) {
            db.put(key(1), value(1));
            db.checkpoint(copy, false);
        }
        try (Db checkpoint = Db.open(copy, options)) {
            assertArrayEquals(value(1), checkpoint.get(key(1)));
        }
    }

    @Test
    void reopenedWithTheLogItReplaysNothingAndLogsAgain() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            db.put(key(1), value(1));
        }
        Db db = Db.open(DIR, Options.defaults().withFileSystem(fs));
        db.put(WriteOptions.SYNC, db.defaultColumnFamily(), key(2), value(2));
        fs.crash();
        TestStates.closeAfterCrash(db);
        try (Db reopened = Db.open(DIR, Options.defaults().withFileSystem(fs))) {
            assertArrayEquals(value(1), reopened.get(key(1)));
            assertArrayEquals(value(2), reopened.get(key(2)), "a synced write with the log survives a crash");
        }
    }

    @Test
    void aDatabaseWrittenWithTheLogOpensWithoutIt() throws IOException {
        Db db = Db.open(DIR, Options.defaults().withFileSystem(fs));
        db.put(WriteOptions.SYNC, db.defaultColumnFamily(), key(1), value(1));
        fs.crash(); // the write is only in the log
        TestStates.closeAfterCrash(db);
        try (Db reopened = Db.open(DIR, options)) {
            assertArrayEquals(value(1), reopened.get(key(1)), "open replays the old logs into tables");
        }
        try (Db reopened = Db.open(DIR, options)) {
            assertArrayEquals(value(1), reopened.get(key(1)));
        }
    }

    private List<String> logs() throws IOException {
        return fs.list(DIR).stream().filter(name -> {
            OptionalLong n = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
            return n.isPresent();
        }).toList();
    }

    private static byte[] key(int k) {
        return String.format("k%05d", k).getBytes();
    }

    private static byte[] value(int v) {
        return ("v" + v).getBytes();
    }
}
