package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import io.varve.core.internal.version.Version;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tables with nothing to merge with below them go down a level by a manifest edit: sequential loads are not
 * rewritten at every level, the moved tables stay live (obsolete-file deletion must not take them), and they
 * survive a reopen where they were moved to. Manual compactions always rewrite.
 */
class TrivialMoveTest {

    private static final Path DIR = Path.of("/moves");
    private static final CompactionSettings SMALL = new CompactionSettings(2, 256 << 10, 4, 64 << 10);
    private static final int KEYS = 6000;

    private static Options options(MemFileSystem fs) {
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10).withCompactionSettings(SMALL);
    }

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes();
    }

    private static byte[] value(int i) {
        byte[] value = new byte[200];
        Arrays.fill(value, (byte) i);
        return value;
    }

    @Test
    void sequentialKeysAreMovedDownInsteadOfRewritten() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            for (int i = 0; i < KEYS; i++) {
                db.put(key(i), value(i));
            }
            db.flush();
            DbTestAccess.awaitCompactions(db);
            DbTestAccess.awaitReclaimed(db);
            long moved = db.getLongProperty("varve.compaction-tables-moved");
            assertTrue(moved > 0, "some table was moved");
            long[] stats = DbTestAccess.backgroundStatistics(db);
            assertEquals(0, stats[1], "disjoint sequential tables are never rewritten: " + stats[1] + " bytes");
            Version v = DbTestAccess.currentVersion(db);
            try {
                assertTrue(v.level(0).size() < SMALL.level0FileTrigger(), "level 0 drained below its trigger");
            } finally {
                v.release();
            }
            assertAllPresent(db);
        }
        try (Db db = Db.open(DIR, options(fs))) {
            assertAllPresent(db);
        }
    }

    @Test
    void overlappingTablesAreMergedNotMoved() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            // Every flush spans the whole key space, so level-0 tables overlap and must be merged.
            for (int round = 0; round < 6; round++) {
                for (int i = round; i < KEYS; i += 6) {
                    db.put(key(i), value(i));
                }
                db.flush();
            }
            DbTestAccess.awaitCompactions(db);
            assertTrue(DbTestAccess.backgroundStatistics(db)[1] > 0, "overlapping tables were rewritten");
            assertAllPresent(db);
        }
    }

    @Test
    void manualCompactionRewritesEvenDisjointTables() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs).withCompactionSettings(
                new CompactionSettings(1000, 256 << 10, 4, 64 << 10)))) {
            for (int i = 0; i < KEYS; i++) {
                db.put(key(i), value(i));
            }
            db.flush();
            db.compactRange(null, null);
            assertEquals(0, db.getLongProperty("varve.compaction-tables-moved"));
            assertTrue(DbTestAccess.backgroundStatistics(db)[1] > 0, "manual compaction rewrote the tables");
            assertAllPresent(db);
        }
    }

    private static void assertAllPresent(Db db) {
        for (int i = 0; i < KEYS; i++) {
            assertArrayEquals(value(i), db.get(key(i)), "key " + i);
        }
    }
}
