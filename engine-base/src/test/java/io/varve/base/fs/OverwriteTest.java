package io.varve.base.fs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Writing over an existing file: what stays, what the handle reports, and what a crash leaves. */
class OverwriteTest {

    private static final Path DIR = Path.of("/db");

    @Test
    void overwritingKeepsTheBytesPastTheWrittenRangeAndGrowsOnlyPastTheEnd() throws IOException {
        for (FileSystem fs : new FileSystem[] {mem()}) {
            checkOverwriteSemantics(fs, DIR);
        }
    }

    @Test
    void theDiskFileSystemOverwritesInPlace(@TempDir Path dir) throws IOException {
        checkOverwriteSemantics(DiskFileSystem.INSTANCE, dir);
    }

    private static void checkOverwriteSemantics(FileSystem fs, Path dir) throws IOException {
        Path f = dir.resolve("f");
        write(fs.create(f), bytes(10, 1), true);
        try (WritableFile w = fs.openForOverwrite(f, 2)) {
            assertEquals(2, w.size());
            w.write(ByteBuffer.wrap(new byte[] {-1, -2}));
            assertEquals(4, w.size());
        }
        assertEquals(10, fs.size(f));
        assertArrayEquals(new byte[] {1, 2, -1, -2, 5, 6, 7, 8, 9, 10}, read(fs, f));
        try (WritableFile w = fs.openForOverwrite(f, 8)) {
            w.write(ByteBuffer.wrap(new byte[] {20, 21, 22, 23}));
            assertEquals(12, w.size());
        }
        assertEquals(12, fs.size(f));
        assertArrayEquals(new byte[] {1, 2, -1, -2, 5, 6, 7, 8, 20, 21, 22, 23}, read(fs, f));
        assertThrows(IllegalArgumentException.class, () -> fs.openForOverwrite(f, 13));
        assertThrows(IllegalArgumentException.class, () -> fs.openForOverwrite(f, -1));
        assertThrows(java.nio.file.NoSuchFileException.class, () -> fs.openForOverwrite(dir.resolve("none"), 0));
    }

    @Test
    void syncedOverwritesSurviveACrashAndUnsyncedOnesRevert() throws IOException {
        MemFileSystem fs = mem();
        Path f = DIR.resolve("f");
        write(fs.create(f), bytes(8, 1), true);
        fs.syncDirectory(DIR);
        try (WritableFile w = fs.openForOverwrite(f, 0)) {
            w.write(ByteBuffer.wrap(new byte[] {50, 51}));
            w.sync();
            w.write(ByteBuffer.wrap(new byte[] {52, 53}));
            w.write(ByteBuffer.wrap(new byte[7])); // past the old end as well
        }
        assertEquals(11, fs.size(f));
        fs.crash();
        assertArrayEquals(new byte[] {50, 51, 3, 4, 5, 6, 7, 8}, read(fs, f));
    }

    @Test
    void aRandomCrashKeepsEachOverwrittenRangeOldOrNewAndNeverShrinksTheFile() throws IOException {
        int allOld = 0;
        int allNew = 0;
        int mixed = 0;
        for (int seed = 0; seed < 200; seed++) {
            MemFileSystem fs = mem();
            Path f = DIR.resolve("f");
            byte[] old = bytes(64, 0);
            write(fs.create(f), old, true);
            fs.syncDirectory(DIR);
            byte[] fresh = bytes(64, 100);
            try (WritableFile w = fs.openForOverwrite(f, 0)) {
                w.write(ByteBuffer.wrap(fresh));
            }
            fs.crash(new Random(seed));
            byte[] after = read(fs, f);
            assertEquals(64, after.length);
            int fromNew = 0;
            for (int i = 0; i < 64; i++) {
                assertTrue(after[i] == old[i] || after[i] == fresh[i], "byte " + i + " is neither old nor new");
                fromNew += after[i] == fresh[i] ? 1 : 0;
            }
            if (fromNew == 0) {
                allOld++;
            } else if (fromNew == 64) {
                allNew++;
            } else {
                mixed++;
            }
        }
        assertTrue(allOld > 0 && allNew > 0 && mixed > 0, allOld + " all old, " + allNew + " all new, " + mixed
                + " mixed: the model should produce every kind of outcome");
    }

    @Test
    void injectedFailuresCountTheOverwriteOpen() throws IOException {
        MemFileSystem disk = mem();
        write(disk.create(DIR.resolve("f")), bytes(4, 1), true);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem(disk);
        fs.failAt(1, false);
        FaultInjectingFileSystem.InjectedIOException e = assertThrows(
                FaultInjectingFileSystem.InjectedIOException.class, () -> fs.openForOverwrite(DIR.resolve("f"), 0));
        assertEquals("openForOverwrite", e.operationName());
        try (WritableFile w = fs.openForOverwrite(DIR.resolve("f"), 1)) {
            fs.failAt(1, false);
            assertThrows(FaultInjectingFileSystem.InjectedIOException.class, () -> w.write(ByteBuffer.wrap(new byte[1])));
            w.write(ByteBuffer.wrap(new byte[] {9}));
        }
        assertArrayEquals(new byte[] {1, 9, 3, 4}, read(disk, DIR.resolve("f")));
    }

    @Test
    void theForwardingFileSystemForwardsTheOverwriteOpen() throws IOException {
        MemFileSystem disk = mem();
        write(disk.create(DIR.resolve("f")), bytes(3, 1), true);
        FileSystem fs = new ForwardingFileSystem(disk);
        try (WritableFile w = fs.openForOverwrite(DIR.resolve("f"), 1)) {
            w.write(ByteBuffer.wrap(new byte[] {7}));
        }
        assertArrayEquals(new byte[] {1, 7, 3}, read(disk, DIR.resolve("f")));
    }

    static MemFileSystem mem() {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        return fs;
    }

    static byte[] bytes(int n, int first) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (first + i);
        }
        return b;
    }

    static void write(WritableFile w, byte[] data, boolean sync) throws IOException {
        try (w) {
            w.write(ByteBuffer.wrap(data));
            if (sync) {
                w.sync();
            }
        }
    }

    static byte[] read(FileSystem fs, Path f) throws IOException {
        try (ReadableFile r = fs.openReadable(f)) {
            byte[] b = new byte[(int) r.size()];
            r.readFully(ByteBuffer.wrap(b), 0);
            return b;
        }
    }
}
