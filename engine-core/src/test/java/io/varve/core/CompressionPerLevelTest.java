package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.sst.TableOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TableOptions#withCompressionPerLevel}: flushes write level 0 as that level's setting says, compactions
 * write each output level as its own setting says, and a table never goes down by a trivial move into a level
 * that compresses differently (it would stay there as that level's setting never wrote it).
 */
class CompressionPerLevelTest {

    private static final Path DIR = Path.of("/per-level");
    private static final CompactionSettings SMALL = new CompactionSettings(2, 256 << 10, 4, 64 << 10);
    private static final int KEYS = 6000;

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes();
    }

    /** Compressible: every block shrinks far more than the 12.5% compression must save. */
    private static byte[] value(int i) {
        byte[] value = new byte[200];
        Arrays.fill(value, (byte) i);
        return value;
    }

    @Test
    void levelsPastTheListFollowItsLastEntry() {
        TableOptions options = TableOptions.defaults().withCompressionPerLevel(false, true);
        assertFalse(options.compression(0));
        assertTrue(options.compression(1));
        assertTrue(options.compression(6));
        assertFalse(options.forLevel(0).compression());
        assertTrue(options.forLevel(3).compression());
        assertTrue(options.withBlockSize(8192).compression(2), "other settings keep the per-level list");
        assertTrue(options.withCompression(true).compression(0), "one setting for all levels replaces the list");
        assertThrows(IllegalArgumentException.class, () -> TableOptions.defaults().withCompressionPerLevel());
    }

    @Test
    void levelZeroIsWrittenUncompressedAndCompactionsCompressBelowIt() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(SMALL)
                .withTableOptions(TableOptions.defaults().withCompressionPerLevel(false, true));
        try (Db db = Db.open(DIR, options)) {
            for (int i = 0; i < 200; i++) {
                db.put(key(i), value(i));
            }
            db.flush(); // one table, below the level-0 trigger: it stays where the flush put it
            assertEquals(1, assertLevels(db, 0));
            // Sequential keys: with one setting for every level these tables would only ever be moved down.
            for (int i = 200; i < KEYS; i++) {
                db.put(key(i), value(i));
            }
            db.flush();
            DbTestAccess.awaitCompactions(db);
            assertEquals(0, db.getLongProperty("varve.compaction-tables-moved"),
                    "no table moves from uncompressed level 0 into compressed level 1");
            assertTrue(assertLevels(db, 1) > 0, "compactions wrote tables below level 0");
            for (int i = 0; i < KEYS; i += 7) {
                assertArrayEquals(value(i), db.get(key(i)));
            }
        }
    }

    /**
     * Checks level 0 holds only uncompressed tables and the levels below only compressed ones.
     *
     * @return the tables checked at or below {@code fromLevel}
     */
    private static int assertLevels(Db db, int fromLevel) {
        Version v = DbTestAccess.currentVersion(db);
        TableCache tables = DbTestAccess.tableCache(db);
        int checked = 0;
        try {
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : v.level(level)) {
                    TableReader reader = tables.acquire(t);
                    try {
                        long compressed = reader.properties().compressedDataBlockCount();
                        if (level >= fromLevel) {
                            checked++;
                        }
                        if (level == 0) {
                            assertEquals(0, compressed, "level-0 table " + t.fileNumber() + " is compressed");
                        } else {
                            assertEquals(reader.properties().dataBlockCount(), compressed,
                                    "level-" + level + " table " + t.fileNumber() + " is not compressed");
                        }
                    } finally {
                        reader.release();
                    }
                }
            }
        } finally {
            v.release();
        }
        return checked;
    }
}
