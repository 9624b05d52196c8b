package io.varve.base.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The shapes a crash leaves of unsynced appended bytes: a prefix, and sectors lost as zeros with later ones
 * kept. Seeded crashes of the same file must reach every shape, and never touch the synced bytes.
 */
class SectorLossCrashTest {
    private static final Path DIR = Path.of("/d");
    private static final int SYNCED = 700; // not on a sector boundary: the first unsynced sector is partial
    private static final int WRITTEN = 6 * MemFileSystem.SECTOR;

    @Test
    void crashesLeavePrefixesMiddleHolesAndZeroTailsAndKeepTheSyncedBytes() throws IOException {
        boolean prefix = false;
        boolean holeBeforeKeptSector = false;
        boolean zeroTail = false;
        for (long seed = 0; seed < 200; seed++) {
            byte[] after = crashOnce(new Random(seed));
            assertArrayEquals(filled(SYNCED), Arrays.copyOf(after, SYNCED), "seed " + seed + ": synced bytes");
            int firstZero = -1;
            int lastKept = -1;
            for (int i = SYNCED; i < after.length; i++) {
                assertTrue(after[i] == 0 || after[i] == (byte) 0xA5, "seed " + seed + ": byte " + i);
                if (after[i] == 0 && firstZero < 0) {
                    firstZero = i;
                }
                if (after[i] != 0) {
                    lastKept = i;
                }
            }
            prefix |= firstZero < 0 && after.length > SYNCED;
            holeBeforeKeptSector |= firstZero >= 0 && lastKept > firstZero;
            zeroTail |= firstZero >= 0 && after[after.length - 1] == 0;
            if (firstZero >= 0) {
                assertTrue(firstZero == SYNCED || firstZero % MemFileSystem.SECTOR == 0,
                        "seed " + seed + ": a hole starts at the sync point or a sector boundary, not " + firstZero);
            }
        }
        assertTrue(prefix, "some crash keeps a prefix of the unsynced bytes");
        assertTrue(holeBeforeKeptSector, "some crash loses a sector and keeps a later one");
        assertTrue(zeroTail, "some crash leaves a zero-filled tail");
    }

    private static byte[] crashOnce(Random random) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        Path f = DIR.resolve("f");
        try (WritableFile w = fs.create(f)) {
            w.write(ByteBuffer.wrap(filled(SYNCED)));
            w.sync();
            w.write(ByteBuffer.wrap(filled(WRITTEN - SYNCED)));
        }
        fs.syncDirectory(DIR);
        fs.crash(random);
        return OverwriteTest.read(fs, f);
    }

    private static byte[] filled(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) 0xA5);
        return b;
    }
}
