package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbFiles;
import io.varve.core.internal.DbImpl;
import io.varve.core.ingest.CpuPriority;
import io.varve.core.compaction.CompactionSettings;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static io.varve.core.IngestFixtures.bytes;
import static io.varve.core.IngestFixtures.external;
import static io.varve.core.IngestFixtures.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fails the N-th file-system operation of one ingestion of two files, for every N, once and for good, copying
 * and moving, with and without a memtable to flush first; then simulates a machine crash and reopens. The two files' keys must be there all or not at
 * all (all if the call returned), what was written before must be intact, the caller's files must still
 * exist unless the ingestion moved them, and no table file may be left that the tree does not list.
 */
class IngestCrashTest {

    private static final Path DIR = Path.of("/db");
    private static final Path EXT = Path.of("/ext");
    private static final List<String> FIRST = List.of("a1", "a2", "a3");
    private static final List<String> SECOND = List.of("m1", "m2");

    private record Setup(MemFileSystem disk, FaultInjectingFileSystem fs, Db db, List<Path> files) {
    }

    private static Setup setUp(boolean overlap, CpuPriority importPriority) throws IOException {
        MemFileSystem disk = new MemFileSystem();
        disk.createDirectories(EXT);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem(disk);
        Db db = Db.open(DIR, Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withIngestCpuPriority(importPriority));
        db.put(WriteOptions.SYNC, bytes("a2"), bytes("flushed"));
        db.put(WriteOptions.SYNC, bytes("z"), bytes("flushed"));
        db.flush();
        // In the memtable and in the first file's range: the ingestion flushes first.
        db.put(WriteOptions.SYNC, bytes(overlap ? "a1" : "b"), bytes("logged"));
        db.put(WriteOptions.SYNC, bytes("q"), bytes("logged"));
        return new Setup(disk, fs, db, List.of(file(disk, "first.sst", FIRST), file(disk, "second.sst", SECOND)));
    }

    private static Path file(MemFileSystem disk, String name, List<String> keys) throws IOException {
        TreeMap<String, String> entries = new TreeMap<>();
        keys.forEach(k -> entries.put(k, "ingested"));
        return external(disk, EXT.resolve(name), "default", entries);
    }

    @Test
    void aCrashAtAnyOperationLeavesAllFilesOrNone() throws IOException {
        crashAtEveryOperation(CpuPriority.NORMAL);
    }

    /** The file work on the database's idle-priority thread: its failures must reach the caller the same way. */
    @Test
    void aCrashAtAnyOperationOfAnIdlePriorityImportLeavesAllFilesOrNone() throws IOException {
        crashAtEveryOperation(CpuPriority.IDLE);
    }

    private static void crashAtEveryOperation(CpuPriority importPriority) throws IOException {
        boolean[][] cases = {{false, true}, {true, false}, {false, false}}; // {move, memtable overlap}
        for (boolean[] c : cases) {
            long operations = countOperations(c[0], c[1], importPriority);
            assertTrue(operations > 10, "the ingestion should exercise the file system: " + operations);
            for (boolean forever : new boolean[] {false, true}) {
                for (long n = 1; n <= operations; n++) {
                    runWithFailureAt(n, forever, c[0], c[1], importPriority);
                }
            }
        }
    }

    private static IngestOptions options(boolean move) {
        return IngestOptions.defaults().withMoveFiles(move);
    }

    private static long countOperations(boolean move, boolean overlap, CpuPriority importPriority)
            throws IOException {
        Setup s = setUp(overlap, importPriority);
        try (Db db = s.db()) {
            long before = s.fs().operationCount();
            db.ingestExternalFiles(s.files(), options(move));
            return s.fs().operationCount() - before;
        }
    }

    private static void runWithFailureAt(long n, boolean forever, boolean move, boolean overlap,
                                         CpuPriority importPriority) throws IOException {
        String context = "failure at operation " + n + (forever ? " (forever)" : " (once)") + (move ? ", moving" : ", copying")
                + (overlap ? ", flushing first" : "") + ", import at " + importPriority;
        Setup s = setUp(overlap, importPriority);
        s.fs().failAt(n, forever);
        boolean returned = false;
        try {
            s.db().ingestExternalFiles(s.files(), options(move));
            returned = true;
        } catch (IOException | RuntimeException e) {
            assertTrue(TestStates.causedBy(e, FaultInjectingFileSystem.InjectedIOException.class), () -> context + ": unexpected " + e);
        }
        s.fs().heal();
        try {
            s.db().close();
        } catch (RuntimeException ignored) {
            // A failed database may fail to close cleanly; the crash below discards it anyway.
        }
        s.disk().crash(new Random(n));

        // No automatic compaction after reopening: its outputs in progress would look like leftovers.
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(s.disk()).withWriteBufferSize(64 << 10)
                .withCompactionSettings(new CompactionSettings(100, 256L << 20, 10, 64L << 20)))) {
            ColumnFamily cf = db.defaultColumnFamily();
            assertEquals("flushed", get(db, cf, "z"), context);
            assertEquals("logged", get(db, cf, "q"), context);
            if (!overlap) {
                assertEquals("logged", get(db, cf, "b"), context);
            }
            int present = 0;
            for (String key : concat()) {
                if ("ingested".equals(get(db, cf, key))) {
                    present++;
                }
            }
            assertTrue(present == 0 || present == FIRST.size() + SECOND.size(), context + ": " + present + " keys");
            if (returned) {
                assertEquals(FIRST.size() + SECOND.size(), present, context + ": the call returned");
            }
            if (present == 0) {
                assertEquals(overlap ? "logged" : null, get(db, cf, "a1"), context);
                assertEquals("flushed", get(db, cf, "a2"), context);
                for (Path source : s.files()) {
                    assertTrue(s.disk().exists(source), context + ": " + source + " is gone though not ingested");
                }
            }
            assertEquals(liveTables((DbImpl) db), tableFiles(s.disk()), context + ": leftover table files");
        }
    }

    private static List<String> concat() {
        List<String> all = new java.util.ArrayList<>(FIRST);
        all.addAll(SECOND);
        return all;
    }

    private static Set<String> liveTables(DbImpl db) {
        Set<String> names = new HashSet<>();
        Version version = DbTestAccess.currentVersion(db);
        try {
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : version.level(level)) {
                    names.add(DbFiles.table(DIR, t.fileNumber()).getFileName().toString());
                }
            }
        } finally {
            version.release();
        }
        return names;
    }

    private static Set<String> tableFiles(MemFileSystem disk) throws IOException {
        Set<String> names = new HashSet<>();
        for (String name : disk.list(DIR)) {
            if (name.endsWith(DbFiles.TABLE_SUFFIX)) {
                names.add(name);
            }
        }
        return names;
    }
}
