package io.varve.base.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link MemFileSystem#crashKeepingSomeNames}: unsynced directory changes survive or vanish one by one,
 * independently of each other and of file data; synced ones always survive.
 */
class NameLossCrashTest {

    private static final Path DIR = Path.of("/d");
    private static final int SEEDS = 200;

    @Test
    void aRenameIsAtomicAndEitherOutcomeHappens() throws IOException {
        Set<String> outcomes = new HashSet<>();
        for (int seed = 0; seed < SEEDS; seed++) {
            MemFileSystem fs = fileSystem();
            write(fs, DIR.resolve("old"), new byte[] {1, 2}, true);
            fs.syncDirectory(DIR);
            fs.rename(DIR.resolve("old"), DIR.resolve("new"));
            fs.crashKeepingSomeNames(new Random(seed));
            boolean old = fs.exists(DIR.resolve("old"));
            boolean renamed = fs.exists(DIR.resolve("new"));
            assertNotEquals(old, renamed, "seed " + seed + ": exactly one name must survive");
            assertArrayEquals(new byte[] {1, 2}, read(fs, DIR.resolve(old ? "old" : "new")));
            outcomes.add(old ? "old" : "new");
        }
        assertEquals(Set.of("old", "new"), outcomes);
    }

    @Test
    void aLostRenameKeepsTheFilesSyncedNewContentUnderItsOldName() throws IOException {
        boolean sawOldName = false;
        for (int seed = 0; seed < SEEDS; seed++) {
            MemFileSystem fs = fileSystem();
            write(fs, DIR.resolve("7.log"), new byte[] {7, 7, 7}, true);
            fs.syncDirectory(DIR);
            fs.rename(DIR.resolve("7.log"), DIR.resolve("7.recycle"));
            try (WritableFile f = fs.openForOverwrite(DIR.resolve("7.recycle"), 0)) {
                f.write(ByteBuffer.wrap(new byte[] {9}));
                f.sync();
            }
            fs.crashKeepingSomeNames(new Random(seed));
            Path survivor = fs.exists(DIR.resolve("7.log")) ? DIR.resolve("7.log") : DIR.resolve("7.recycle");
            sawOldName |= survivor.endsWith("7.log");
            assertArrayEquals(new byte[] {9, 7, 7}, read(fs, survivor), "seed " + seed);
        }
        assertTrue(sawOldName);
    }

    @Test
    void changesSurviveIndependentlyOfEachOther() throws IOException {
        Set<List<Boolean>> combinations = new HashSet<>();
        for (int seed = 0; seed < SEEDS; seed++) {
            MemFileSystem fs = fileSystem();
            write(fs, DIR.resolve("doomed"), new byte[] {1}, true);
            fs.syncDirectory(DIR);
            fs.delete(DIR.resolve("doomed"));
            write(fs, DIR.resolve("born"), new byte[] {2}, true);
            fs.crashKeepingSomeNames(new Random(seed));
            combinations.add(List.of(fs.exists(DIR.resolve("doomed")), fs.exists(DIR.resolve("born"))));
        }
        // Including a deletion lost while a later creation survived, which the default crash never produces.
        assertEquals(4, combinations.size(), combinations.toString());
    }

    @Test
    void syncedChangesAlwaysSurviveAndTheDefaultCrashDropsEveryUnsyncedOne() throws IOException {
        for (int seed = 0; seed < SEEDS; seed++) {
            MemFileSystem fs = fileSystem();
            write(fs, DIR.resolve("a"), new byte[] {1}, true);
            fs.rename(DIR.resolve("a"), DIR.resolve("b"));
            fs.syncDirectory(DIR);
            write(fs, DIR.resolve("c"), new byte[] {3}, true);
            fs.crashKeepingSomeNames(new Random(seed));
            assertTrue(fs.exists(DIR.resolve("b")));
            assertFalse(fs.exists(DIR.resolve("a")));
            // What that crash kept is now durable: a second crash loses nothing more.
            boolean c = fs.exists(DIR.resolve("c"));
            fs.crash();
            assertEquals(c, fs.exists(DIR.resolve("c")));
        }
        MemFileSystem fs = fileSystem();
        write(fs, DIR.resolve("x"), new byte[] {1}, true);
        fs.crash();
        assertFalse(fs.exists(DIR.resolve("x")));
    }

    private static MemFileSystem fileSystem() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        return fs;
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
