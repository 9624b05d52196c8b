package io.varve.core.internal.ingest;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** {@link LevelPlacement} on hand-built versions: table files are never opened, so none exist. */
class LevelPlacementTest {

    private static final Path DIR = Path.of("/placement");
    private static final long SEQUENCE = 1_000;

    private Reclaimer reclaimer;
    private VersionSet versions;
    private long nextFile = 100;

    private Version version(Object... levelAndTable) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        reclaimer = new Reclaimer("placement-test");
        VersionEdit edit = new VersionEdit().logNumber(1);
        for (int i = 0; i < levelAndTable.length; i += 2) {
            edit.add((Integer) levelAndTable[i], (TableMeta) levelAndTable[i + 1]);
        }
        Memtable memtable = new Memtable(Memtable.MIN_CAPACITY);
        versions = VersionSet.open(fs, DIR, VersionSet.recover(fs, DIR), edit, memtable, reclaimer,
                new TableCache(fs, n -> DIR.resolve(n + ".sst"), null), n -> DIR.resolve(n + ".sst"), 10_000);
        memtable.release();
        return versions.currentVersion();
    }

    @AfterEach
    void tearDown() throws IOException {
        if (versions != null) {
            versions.close();
        }
        if (reclaimer != null) {
            reclaimer.close();
        }
    }

    /** A stored table over {@code [first, last]} whose newest entry has sequence {@code largestSequence}. */
    private TableMeta stored(String first, String last, long largestSequence) {
        return new TableMeta(nextFile++, 1000, bytes(first), InternalKey.trailer(1, ValueKind.PUT), bytes(last),
                InternalKey.trailer(largestSequence, ValueKind.PUT), 1, largestSequence, -1);
    }

    private static ExternalTable external(String first, String last) {
        long trailer = InternalKey.trailer(0, ValueKind.PUT);
        return new ExternalTable(Path.of("/ext/" + first), 1, 1000, bytes(first), trailer, bytes(last), trailer);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static int[] place(Version version, List<LevelPlacement.BusyRange> busy, ExternalTable... tables) {
        try {
            return LevelPlacement.place(version, busy, List.of(tables), SEQUENCE);
        } finally {
            version.release();
        }
    }

    @Test
    void eachTableGoesAboveTheShallowestLevelItOverlaps() throws IOException {
        Version v = version(3, stored("d", "f", 10), 6, stored("a", "z", 5), 1, stored("p", "q", 20),
                0, stored("x", "y", 30));
        assertArrayEquals(new int[] {2, 5, 0, 0}, place(v, List.of(),
                external("e", "e"),      // level 3 holds d..f
                external("g", "h"),      // only level 6 (a..z) overlaps
                external("p", "p"),      // level 1 overlaps: only level 0 is above it
                external("x", "x")));    // level 0 overlaps: level 0, newest first
    }

    @Test
    void keysOutsideEveryTableGoToTheBottom() throws IOException {
        Version v = version(6, stored("a", "c", 5), 2, stored("m", "n", 6));
        assertArrayEquals(new int[] {Version.NUM_LEVELS - 1}, place(v, List.of(), external("d", "l")));
    }

    @Test
    void aRunningCompactionKeepsTheTableAboveItsOutputLevel() throws IOException {
        Version v = version();
        List<LevelPlacement.BusyRange> busy = List.of(
                new LevelPlacement.BusyRange(4, bytes("c"), bytes("k")),
                new LevelPlacement.BusyRange(2, bytes("x"), bytes("z")));
        assertArrayEquals(new int[] {3, 6, 1}, place(v, busy, external("a", "d"), external("l", "m"),
                external("y", "y")));
    }

    @Test
    void aNewerTableBelowMeansNoPlacementIsRight() throws IOException {
        // Level 4 holds a write sequenced after the ingestion (it reached a table while installing).
        Version newer = version(4, stored("a", "c", SEQUENCE + 5));
        assertNull(place(newer, List.of(), external("b", "b")));
        tearDownQuietly();
        Version older = version(4, stored("a", "c", SEQUENCE - 1));
        assertArrayEquals(new int[] {3}, place(older, List.of(), external("b", "b")));
        tearDownQuietly();
        // Level 0 sorts by largest sequence: a newer table there is simply read first.
        Version newerAtZero = version(0, stored("a", "c", SEQUENCE + 5));
        assertArrayEquals(new int[] {0}, place(newerAtZero, List.of(), external("b", "b")));
    }

    private void tearDownQuietly() throws IOException {
        tearDown();
        versions = null;
        reclaimer = null;
    }
}
