package io.varve.core.internal;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.version.Version;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** getProperty, getLongProperty and getApproximateSizes against the version and the statistics the meters read. */
class PropertiesTest {

    private static byte[] key(int n) {
        return String.format("k%06d", n).getBytes();
    }

    @Test
    void propertiesMatchTheVersionAndTheMeters() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(Path.of("/p"), Options.defaults().withFileSystem(fs).withBlockCacheSize(8 << 20))) {
            assertEquals(0, db.getLongProperty("varve.num-files-at-level0"));
            assertEquals(0, db.getLongProperty("varve.total-sst-files-size"));
            for (int i = 0; i < 2000; i++) {
                db.put(key(i), new byte[100]);
            }
            long memtable = db.getLongProperty("varve.cur-size-all-mem-tables");
            assertTrue(memtable > 200_000, "memtable holds the writes: " + memtable);
            db.flush();
            for (int i = 2000; i < 4000; i++) {
                db.put(key(i), new byte[100]);
            }
            db.flush();
            DbImpl impl = (DbImpl) db;
            Version version = impl.versions().currentVersion();
            try {
                long total = 0;
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    assertEquals(version.level(level).size(), db.getLongProperty("varve.num-files-at-level" + level));
                    assertEquals(Long.toString(version.level(level).size()),
                            db.getProperty("varve.num-files-at-level" + level));
                    total += version.levelBytes(level);
                }
                assertEquals(total, db.getLongProperty("varve.total-sst-files-size"));
                assertTrue(total > 0);
                long live = db.getLongProperty("varve.estimate-live-data-size");
                assertTrue(live > 0 && live <= total, "live " + live + " of " + total);

                assertEquals(total, db.getApproximateSizes(List.of(new Db.Range(null, null))).getFirst());
                assertEquals(0L, db.getApproximateSizes(List.of(new Db.Range("z".getBytes(), null))).getFirst());
                List<Long> sizes = db.getApproximateSizes(List.of(new Db.Range(key(0), key(1)),
                        new Db.Range(key(5000), key(6000))));
                assertTrue(sizes.get(0) > 0 && sizes.get(0) < total, "one table: " + sizes.get(0));
                assertEquals(0L, sizes.get(1));
            } finally {
                version.release();
            }
            DbStatistics statistics = impl.dbStatistics();
            assertEquals(statistics.pendingCompactionBytes(), db.getLongProperty("varve.estimate-pending-compaction-bytes"));
            db.get(key(5));
            assertEquals(statistics.blockCacheBytes(), db.getLongProperty("varve.block-cache-usage"));
            assertTrue(db.getLongProperty("varve.block-cache-usage") > 0);
            assertEquals(0, db.getLongProperty("varve.background-errors"));
            assertEquals(0, db.getLongProperty("varve.is-write-stopped"));
            assertEquals(0, db.getLongProperty("varve.num-immutable-mem-table"));
            assertTrue(db.getProperty("varve.levelstats").startsWith("Level"));

            ColumnFamily a = db.createColumnFamily("a", ColumnFamilyOptions.defaults());
            db.put(a, key(1), new byte[10]);
            assertEquals(0, db.getLongProperty(a, "varve.total-sst-files-size"));
            assertTrue(db.getLongProperty(a, "varve.cur-size-all-mem-tables") > 0);

            assertThrows(IllegalArgumentException.class, () -> db.getProperty("varve.no-such-property"));
            assertThrows(IllegalArgumentException.class, () -> db.getLongProperty("varve.levelstats"));
            assertThrows(IllegalArgumentException.class, () -> db.getLongProperty("varve.num-files-at-level9"));
        }
    }
}
