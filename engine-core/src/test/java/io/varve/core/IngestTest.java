package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbFiles;
import io.varve.core.internal.Ingestion;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.ingest.IngestRequiresFlushException;
import io.varve.core.internal.version.Version;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

import static io.varve.core.IngestFixtures.bytes;
import static io.varve.core.IngestFixtures.external;
import static io.varve.core.IngestFixtures.get;
import static io.varve.core.IngestFixtures.levelOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ingestion's visible behaviour: reads, snapshots, placement, flushes, moving files, reopening. */
class IngestTest {

    private static final Path DIR = Path.of("/db");
    private static final Path EXT = Path.of("/ext");

    private MemFileSystem fs;
    private Options options;

    @BeforeEach
    void setUp() throws IOException {
        fs = new MemFileSystem();
        fs.createDirectories(EXT);
        options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
    }

    private Path file(String name, String... keyValues) throws IOException {
        TreeMap<String, String> entries = new TreeMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            entries.put(keyValues[i], keyValues[i + 1]);
        }
        return external(fs, EXT.resolve(name), "default", entries);
    }

    @Test
    void ingestedKeysAreReadableAfterwardsAndInvisibleToOlderSnapshots() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily cf = db.defaultColumnFamily();
            db.put(bytes("a"), bytes("old"));
            db.put(bytes("m"), bytes("kept"));
            db.flush();
            Snapshot before = db.snapshot();
            db.ingestExternalFiles(List.of(file("f1.sst", "a", "new", "b", "bee")), IngestOptions.defaults());
            assertEquals("new", get(db, cf, "a"));
            assertEquals("bee", get(db, cf, "b"));
            assertEquals("kept", get(db, cf, "m"));
            assertEquals("old", new String(db.get(ReadOptions.at(before), bytes("a"))));
            assertNull(db.get(ReadOptions.at(before), bytes("b")));
            assertEquals(List.of("a", "b", "m"), keys(db, ReadOptions.DEFAULT));
            assertEquals(List.of("a", "m"), keys(db, ReadOptions.at(before)));
            before.close();
            db.put(bytes("a"), bytes("newest"));
            assertEquals("newest", get(db, cf, "a"), "later writes are newer than the ingested table");
        }
    }

    @Test
    void anEmptyTreeTakesTheTableAtTheBottom() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            db.ingestExternalFiles(List.of(file("f.sst", "k1", "v1", "k2", "v2")), IngestOptions.defaults());
            assertEquals(Version.NUM_LEVELS - 1, levelOf(db, db.defaultColumnFamily(), "k1"));
        }
    }

    @Test
    void aTableGoesAboveTheShallowestOverlappingLevelAndToLevelZeroWhenLevelOneOverlaps() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily cf = db.defaultColumnFamily();
            db.ingestExternalFiles(List.of(file("bottom.sst", "c", "1", "f", "1")), IngestOptions.defaults());
            assertEquals(6, levelOf(db, cf, "c"));
            // Overlaps the table at level 6: lands right above it; a disjoint one still goes to the bottom.
            db.ingestExternalFiles(List.of(file("above.sst", "d", "2", "e", "2"), file("aside.sst", "x", "3")),
                    IngestOptions.defaults());
            assertEquals(5, levelOf(db, cf, "d"));
            assertEquals(6, levelOf(db, cf, "x"));
            assertEquals("2", get(db, cf, "d"));
            // A flushed table at level 0 overlapping: the ingested one goes to level 0 too, newest first.
            db.put(bytes("e"), bytes("flushed"));
            db.flush();
            db.ingestExternalFiles(List.of(file("top.sst", "e", "4")), IngestOptions.defaults());
            assertEquals(0, levelOf(db, cf, "e"));
            assertEquals("4", get(db, cf, "e"));
            assertEquals("1", get(db, cf, "f"));
        }
    }

    @Test
    void keysInAMemtableAreFlushedFirstOrReportedWithoutChangingAnything() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily cf = db.defaultColumnFamily();
            db.put(bytes("k"), bytes("memtable"));
            long before = DbTestAccess.visibleSequence(db);
            List<String> filesBefore = tables();
            Path f = file("f.sst", "k", "ingested");
            assertThrows(IngestRequiresFlushException.class, () -> db.ingestExternalFiles(List.of(f),
                    IngestOptions.defaults().withAllowBlockingFlush(false).withMoveFiles(true)));
            assertEquals("memtable", get(db, cf, "k"));
            assertEquals(filesBefore, tables(), "no table file left behind in the database");
            assertTrue(fs.exists(f), "the caller's file stays where it was");
            assertEquals(before, DbTestAccess.visibleSequence(db));

            db.ingestExternalFiles(List.of(f), IngestOptions.defaults());
            assertEquals("ingested", get(db, cf, "k"), "the memtable was flushed, then the file ingested above it");
            assertEquals(0, levelOf(db, cf, "k"));
        }
    }

    @Test
    void theFlushRetryHelperAndAllowWriteIngestToo() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily cf = db.defaultColumnFamily();
            db.put(bytes("h"), bytes("memtable"));
            db.ingestExternalFilesWithFlushRetry(cf, List.of(file("h.sst", "h", "helper")), IngestOptions.defaults());
            assertEquals("helper", get(db, cf, "h"));
            db.put(bytes("w"), bytes("memtable"));
            db.ingestExternalFiles(List.of(file("w.sst", "w", "allowWrite")),
                    IngestOptions.defaults().withAllowWrite(true));
            assertEquals("allowWrite", get(db, cf, "w"));
            assertEquals(0, db.rangeLatch().queuedCount(), "the latch is released");
        }
    }

    @Test
    void movingRemovesTheOriginalAndCopyingKeepsIt() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            Path moved = file("moved.sst", "a", "1");
            Path copied = file("copied.sst", "b", "2");
            db.ingestExternalFiles(List.of(moved), IngestOptions.defaults().withMoveFiles(true));
            db.ingestExternalFiles(List.of(copied), IngestOptions.defaults());
            assertFalse(fs.exists(moved));
            assertTrue(fs.exists(copied));
            assertEquals("1", get(db, db.defaultColumnFamily(), "a"));
        }
    }

    @Test
    void ingestedTablesAndTheSequenceSurviveReopening() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            db.put(bytes("z"), bytes("logged"));
            db.ingestExternalFiles(List.of(file("f.sst", "a", "1", "b", "2")), IngestOptions.defaults());
        }
        fs.crash();
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily cf = db.defaultColumnFamily();
            assertEquals("1", get(db, cf, "a"));
            assertEquals("logged", get(db, cf, "z"));
            // A write after reopening must be newer than the ingested table, though no log holds its number.
            db.put(bytes("a"), bytes("after"));
            db.flush();
            db.compactRange(null, null);
            assertEquals("after", get(db, cf, "a"));
            assertEquals("2", get(db, cf, "b"));
        }
    }

    @Test
    void columnFamiliesTakeOnlyTheirOwnFiles() throws IOException {
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily users = db.createColumnFamily("users", ColumnFamilyOptions.from(options));
            TreeMap<String, String> entries = new TreeMap<>();
            entries.put("u1", "ada");
            Path forUsers = external(fs, EXT.resolve("users.sst"), "users", entries);
            IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
                    () -> db.ingestExternalFiles(List.of(forUsers), IngestOptions.defaults()));
            assertTrue(wrong.getMessage().contains("'users'"), wrong.getMessage());
            db.ingestExternalFiles(users, List.of(forUsers), IngestOptions.defaults());
            assertEquals("ada", get(db, users, "u1"));
            assertNull(get(db, db.defaultColumnFamily(), "u1"));
        }
    }

    /** Table files only: obsolete logs are deleted in the background at any time. */
    private List<String> tables() throws IOException {
        return fs.list(DIR).stream().filter(name -> name.endsWith(DbFiles.TABLE_SUFFIX)).toList();
    }

    private static List<String> keys(Db db, ReadOptions read) {
        List<String> keys = new java.util.ArrayList<>();
        try (DbIterator it = db.iterator(read)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                keys.add(new String(it.key()));
            }
        }
        return keys;
    }
}
