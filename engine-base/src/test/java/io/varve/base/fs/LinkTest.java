package io.varve.base.fs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hard links on the in-memory and the real file system: shared bytes, crash rules of a new name, errors. */
class LinkTest {

    private static final Path SOURCE_DIR = Path.of("/ext");
    private static final Path DB_DIR = Path.of("/db");

    @Test
    void aLinkSharesTheBytesAndOutlivesTheOriginalName() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(SOURCE_DIR);
        fs.createDirectories(DB_DIR);
        write(fs, SOURCE_DIR.resolve("a"), new byte[] {1, 2, 3}, true);
        fs.link(SOURCE_DIR.resolve("a"), DB_DIR.resolve("b"));
        fs.delete(SOURCE_DIR.resolve("a"));
        assertArrayEquals(new byte[] {1, 2, 3}, read(fs, DB_DIR.resolve("b")));
        assertFalse(fs.exists(SOURCE_DIR.resolve("a")));
    }

    @Test
    void aLinkSurvivesACrashOnlyAfterItsDirectoryIsSynced() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(SOURCE_DIR);
        fs.createDirectories(DB_DIR);
        write(fs, SOURCE_DIR.resolve("a"), new byte[] {7}, true);
        fs.syncDirectory(SOURCE_DIR);
        fs.link(SOURCE_DIR.resolve("a"), DB_DIR.resolve("lost"));
        fs.crash();
        assertFalse(fs.exists(DB_DIR.resolve("lost")));
        fs.link(SOURCE_DIR.resolve("a"), DB_DIR.resolve("kept"));
        fs.syncDirectory(DB_DIR);
        fs.crash();
        assertArrayEquals(new byte[] {7}, read(fs, DB_DIR.resolve("kept")));
    }

    @Test
    void linkingRefusesAMissingSourceAndAnExistingTarget() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DB_DIR);
        assertThrows(NoSuchFileException.class, () -> fs.link(DB_DIR.resolve("none"), DB_DIR.resolve("x")));
        write(fs, DB_DIR.resolve("a"), new byte[] {1}, false);
        write(fs, DB_DIR.resolve("b"), new byte[] {2}, false);
        assertThrows(FileAlreadyExistsException.class, () -> fs.link(DB_DIR.resolve("a"), DB_DIR.resolve("b")));
        assertArrayEquals(new byte[] {2}, read(fs, DB_DIR.resolve("b")));
    }

    @Test
    void theDiskFileSystemLinksToo(@TempDir Path dir) throws IOException {
        DiskFileSystem fs = DiskFileSystem.INSTANCE;
        write(fs, dir.resolve("a"), new byte[] {4, 5}, true);
        fs.link(dir.resolve("a"), dir.resolve("b"));
        fs.delete(dir.resolve("a"));
        assertArrayEquals(new byte[] {4, 5}, read(fs, dir.resolve("b")));
        assertThrows(NoSuchFileException.class, () -> fs.link(dir.resolve("a"), dir.resolve("c")));
    }

    @Test
    void injectedLinkFailuresAreCounted() throws IOException {
        MemFileSystem disk = new MemFileSystem();
        disk.createDirectories(DB_DIR);
        write(disk, DB_DIR.resolve("a"), new byte[] {1}, false);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem(disk);
        fs.failAt(1, false);
        assertThrows(FaultInjectingFileSystem.InjectedIOException.class,
                () -> fs.link(DB_DIR.resolve("a"), DB_DIR.resolve("b")));
        assertEquals(java.util.List.of("link"), fs.injectedFailures());
        assertFalse(fs.exists(DB_DIR.resolve("b")));
        fs.link(DB_DIR.resolve("a"), DB_DIR.resolve("b"));
        assertTrue(fs.exists(DB_DIR.resolve("b")));
    }

    private static void write(FileSystem fs, Path path, byte[] bytes, boolean sync) throws IOException {
        try (WritableFile file = fs.create(path)) {
            file.write(ByteBuffer.wrap(bytes));
            if (sync) {
                file.sync();
            }
        }
    }

    private static byte[] read(FileSystem fs, Path path) throws IOException {
        try (ReadableFile file = fs.openReadable(path)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) file.size());
            file.read(buffer, 0);
            return buffer.array();
        }
    }
}
