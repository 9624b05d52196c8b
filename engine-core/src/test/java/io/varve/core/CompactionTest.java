package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.compaction.CompactionFilter;
import io.varve.core.compaction.CompactionSettings;
import io.varve.core.compaction.filters.TtlCompactionFilter;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.version.Version;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Leveled compaction's promises: bounded space, no resurrected data, snapshots kept, filters applied. */
class CompactionTest {

    private static final Path DIR = Path.of("/compaction");

    private static Options small(MemFileSystem fs) {
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(128 << 10)
                .withCompactionSettings(SMALL_SETTINGS);
    }

    private static final CompactionSettings SMALL_SETTINGS = new CompactionSettings(4, 256 << 10, 4, 64 << 10);

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes();
    }

    private static long tableBytes(Db db) {
        Version v = DbTestAccess.currentVersion(db);
        try {
            long bytes = 0;
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                bytes += v.levelBytes(level);
            }
            return bytes;
        } finally {
            v.release();
        }
    }

    @Test
    void overwritingTheKeySpaceTenTimesLeavesAtMostTwiceTheLiveData() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        int keys = 2000;
        int valueSize = 500;
        Random random = new Random(42);
        try (Db db = Db.open(DIR, small(fs).withTableOptions(io.varve.core.sst.TableOptions.defaults().withCompression(false)))) {
            for (int round = 0; round < 10; round++) {
                for (int i = 0; i < keys; i++) {
                    byte[] value = new byte[valueSize];
                    random.nextBytes(value);
                    db.put(key(i), value);
                }
            }
            db.flush();
            DbTestAccess.awaitCompactions(db);
            long live = (long) keys * (valueSize + key(0).length);
            long onDisk = tableBytes(db);
            assertTrue(onDisk < 10 * live, "compaction dropped overwritten versions: " + onDisk + " bytes for "
                    + live + " live bytes, " + 10 * live + " written");
            // Once compaction is idle, leveled compaction's own invariants bound the space. (A fixed "twice the
            // live data" failed now and then: where the last flushes land varies with timing, and up to three
            // full level-0 tables plus upper levels at their targets can exceed it within these settings.)
            CompactionSettings settings = SMALL_SETTINGS;
            Version v = DbTestAccess.currentVersion(db);
            try {
                assertTrue(v.level(0).size() < settings.level0FileTrigger(), "level 0 below its trigger");
                int bottom = 0;
                for (int level = 1; level < Version.NUM_LEVELS; level++) {
                    if (v.level(level).size() > 0) {
                        bottom = level;
                    }
                }
                long target = settings.maxBytesForLevelBase();
                for (int level = 1; level < bottom; level++, target *= settings.levelSizeMultiplier()) {
                    assertTrue(v.levelBytes(level) <= target, "level " + level + " holds " + v.levelBytes(level)
                            + " bytes, above its target " + target);
                }
                assertTrue(v.levelBytes(bottom) <= live + live / 10, "the last level holds one version per key: "
                        + v.levelBytes(bottom) + " bytes for " + live + " live bytes");
            } finally {
                v.release();
            }
            long[] stats = DbTestAccess.backgroundStatistics(db);
            assertTrue(stats[1] > 0, "compactions wrote something");
        }
    }

    @Test
    void deletedKeysDoNotComeBackAndBottommostTombstonesAreDropped() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, small(fs))) {
            for (int i = 0; i < 3000; i++) {
                db.put(key(i), new byte[100]);
            }
            db.compactRange(null, null);
            for (int i = 0; i < 3000; i++) {
                db.delete(key(i));
            }
            db.compactRange(null, null);
            for (int i = 0; i < 3000; i += 97) {
                assertNull(db.get(key(i)));
            }
            try (DbIterator it = db.iterator()) {
                it.seekToFirst();
                assertTrue(!it.valid(), "nothing should remain");
            }
            assertEquals(0, tableBytes(db), "tombstones at the bottom with nothing below are dropped");
        }
    }

    @Test
    void compactionKeepsWhatOpenSnapshotsRead() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, small(fs))) {
            for (int i = 0; i < 1000; i++) {
                db.put(key(i), "old".getBytes());
            }
            try (Snapshot snapshot = db.snapshot()) {
                for (int i = 0; i < 1000; i++) {
                    if (i % 2 == 0) {
                        db.put(key(i), "new".getBytes());
                    } else {
                        db.delete(key(i));
                    }
                }
                db.compactRange(null, null);
                for (int i = 0; i < 1000; i += 7) {
                    assertArrayEquals("old".getBytes(), db.get(ReadOptions.at(snapshot), key(i)));
                    assertArrayEquals(i % 2 == 0 ? "new".getBytes() : null, db.get(key(i)));
                }
            }
            // Without the snapshot, the old versions go at the next compaction.
            long before = tableBytes(db);
            db.compactRange(null, null);
            assertTrue(tableBytes(db) < before, "old versions dropped once no snapshot needs them");
        }
    }

    @Test
    void ttlFilterRemovesExpiredValuesButNeverWhatASnapshotSees() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        AtomicLong now = new AtomicLong(1_000);
        try (Db db = Db.open(DIR, small(fs).withCompactionFilter(new TtlCompactionFilter(now::get)))) {
            for (int i = 0; i < 100; i++) {
                long expiry = i % 2 == 0 ? 2_000 : 0;
                db.put(key(i), TtlCompactionFilter.encode(expiry, ("v" + i).getBytes()));
            }
            Snapshot snapshot = db.snapshot();
            now.set(5_000);
            db.compactRange(null, null);
            // The snapshot sees every value, so nothing was removed yet.
            for (int i = 0; i < 100; i++) {
                assertTrue(db.get(key(i)) != null, "kept while a snapshot could see it: " + i);
            }
            snapshot.close();
            db.compactRange(null, null);
            for (int i = 0; i < 100; i++) {
                byte[] stored = db.get(key(i));
                if (i % 2 == 0) {
                    assertNull(stored, "expired value " + i + " removed");
                } else {
                    assertArrayEquals(("v" + i).getBytes(), TtlCompactionFilter.payload(stored));
                }
            }
        }
    }

    @Test
    void aFilterCanRewriteValues() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        CompactionFilter upper = (level, key, value) -> new CompactionFilter.ChangeValue(new String(value).toUpperCase().getBytes());
        try (Db db = Db.open(DIR, small(fs).withCompactionFilter(upper))) {
            db.put(key(1), "quiet".getBytes());
            db.compactRange(null, null);
            assertArrayEquals("QUIET".getBytes(), db.get(key(1)));
        }
    }
}
