package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * deleteFilesInRange drops exactly the tables lying wholly inside the range, durably, and nothing else: keys
 * outside the range and keys of tables reaching outside it stay.
 */
class DeleteFilesInRangeTest {

    private static final Path DIR = Path.of("/dfr");

    private static byte[] key(int n) {
        return String.format("k%04d", n).getBytes();
    }

    private static byte[] value(int n) {
        byte[] v = new byte[50];
        Arrays.fill(v, (byte) n);
        return v;
    }

    @Test
    void dropsOnlyTablesWhollyInsideTheRange() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        // A level-0 trigger no test reaches: each flush stays one level-0 table with a known key span.
        Options options = Options.defaults().withFileSystem(fs)
                .withCompactionSettings(new CompactionSettings(100, 64 << 20, 10, 64 << 20));
        try (Db db = Db.open(DIR, options)) {
            for (int part = 0; part < 4; part++) {
                for (int i = part * 250; i < (part + 1) * 250; i++) {
                    db.put(key(i), value(i));
                }
                db.flush();
            }
            db.put(key(400), value(1)); // in the memtable: stays
            assertEquals(4, db.getLongProperty("varve.num-files-at-level0"));
            // [k0250, k0750) holds the second table whole; the third (k0500..k0749) too; the first and fourth
            // reach outside.
            assertThrows(IllegalArgumentException.class,
                    () -> db.deleteFilesInRange(db.defaultColumnFamily(), key(5), key(1)));
            assertEquals(2, db.deleteFilesInRange(db.defaultColumnFamily(), key(250), key(750)));
            assertEquals(0, db.deleteFilesInRange(db.defaultColumnFamily(), key(250), key(750)));
            // The end is exclusive: a table ending at the end key is not inside.
            assertEquals(0, db.deleteFilesInRange(db.defaultColumnFamily(), key(750), key(999)));
            check(db, 2);
        }
        try (Db db = Db.open(DIR, options)) {
            check(db, 3); // the open wrote the memtable's key 400 as a table of its own
            assertEquals(3, db.deleteFilesInRange(db.defaultColumnFamily(), null, null));
            for (int i = 0; i < 1000; i++) {
                assertNull(db.get(key(i)), "key " + i);
            }
            assertEquals(0, db.getLongProperty("varve.total-sst-files-size"));
        }
    }

    private static void check(Db db, int tables) {
        assertEquals(tables, db.getLongProperty("varve.num-files-at-level0"));
        for (int i = 0; i < 1000; i++) {
            byte[] actual = db.get(key(i));
            if (i == 400) {
                assertArrayEquals(value(1), actual);
            } else if (i >= 250 && i < 750) {
                assertNull(actual, "key " + i + " was in a dropped table");
            } else {
                assertArrayEquals(value(i), actual, "key " + i);
            }
        }
        assertTrue(db.getLongProperty("varve.total-sst-files-size") > 0);
    }
}
