package io.varve.core;

import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An open writes a new manifest and points CURRENT at it. If the directory sync after the rename of CURRENT
 * fails, the open fails; a crash may then keep or lose each unsynced directory change on its own
 * ({@link MemFileSystem#crashKeepingSomeNames}). CURRENT must never survive naming a manifest whose own name
 * was lost: the manifest's name must be durable before CURRENT can point at it.
 */
class ManifestSwitchCrashTest {

    private static final Path DIR = Path.of("/db");

    @Test
    void currentNeverNamesAManifestACrashLost() throws IOException {
        for (int seed = 0; seed < 64; seed++) {
            MemFileSystem disk = new MemFileSystem();
            FailSyncAfterCurrentRename fs = new FailSyncAfterCurrentRename(disk);
            Options options = Options.defaults().withFileSystem(fs);
            try (Db db = Db.open(DIR, options)) {
                db.put(WriteOptions.SYNC, IngestFixtures.bytes("k"), IngestFixtures.bytes("v"));
            }
            fs.armed = true;
            assertThrows(IOException.class, () -> Db.open(DIR, options).close());
            fs.armed = false;
            disk.crashKeepingSomeNames(new Random(seed));
            try (Db db = Db.open(DIR, options)) {
                assertArrayEquals(IngestFixtures.bytes("v"), db.get(IngestFixtures.bytes("k")), "seed " + seed);
            }
        }
    }

    /** Fails the first directory sync after CURRENT was renamed into place, while armed. */
    private static final class FailSyncAfterCurrentRename extends ForwardingFileSystem {
        volatile boolean armed;
        private volatile boolean renamed;

        FailSyncAfterCurrentRename(MemFileSystem disk) {
            super(disk);
        }

        @Override
        public void rename(Path source, Path target) throws IOException {
            super.rename(source, target);
            renamed = armed && target.getFileName().toString().equals("CURRENT");
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            if (renamed) {
                renamed = false;
                throw new IOException("injected: directory sync after the CURRENT rename");
            }
            super.syncDirectory(dir);
        }
    }
}
