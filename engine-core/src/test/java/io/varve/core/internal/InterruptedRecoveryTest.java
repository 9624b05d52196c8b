package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteOptions;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An open cut short (a process killed, an I/O error) before it wrote its new manifest must leave the directory
 * as the next open needs it. Found by the engine-kill campaign: recovery deleted an empty log that the old
 * manifest still named as needed, before the new manifest existed; a kill there left a newer log beside a
 * manifest whose needed log was gone, and every later open refused the database. The failed open must also
 * release what it had built (the leak detector checks every test): its read views held memtable arenas.
 */
class InterruptedRecoveryTest {

    private static final Path DIR = Path.of("/interrupted-recovery");

    /** Fails the creation of manifests while {@code failing} is set, as a process killed right there. */
    private static final class FailingManifests extends ForwardingFileSystem {
        volatile boolean failing;

        FailingManifests(MemFileSystem fs) {
            super(fs);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            if (failing && path.getFileName().toString().startsWith("MANIFEST-")) {
                throw new IOException("simulated failure creating " + path);
            }
            return super.create(path);
        }
    }

    @Test
    void anOpenCutShortBeforeItsManifestLeavesTheDatabaseOpenable() throws IOException {
        MemFileSystem memory = new MemFileSystem();
        FailingManifests fs = new FailingManifests(memory);
        Options options = Options.defaults().withFileSystem(fs);
        byte[] key = "key".getBytes(StandardCharsets.UTF_8);
        try (Db db = Db.open(DIR, options)) {
            db.put(WriteOptions.SYNC, key, key);
        }
        // A session that writes nothing leaves its log empty; its log worker may leave an empty spare log,
        // numbered above everything, as this test makes by hand.
        try (Db db = Db.open(DIR, options)) {
            assertArrayEquals(key, db.get(key));
        }
        long newest = 0;
        for (String name : memory.list(DIR)) {
            newest = Math.max(newest, DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX).orElse(0));
            newest = Math.max(newest, DbFiles.parseNumber(name, DbFiles.TABLE_SUFFIX).orElse(0));
        }
        memory.create(DbFiles.log(DIR, newest + 10)).close();
        fs.failing = true;
        assertThrows(IOException.class, () -> Db.open(DIR, options));
        fs.failing = false;
        try (Db db = Db.open(DIR, options)) {
            assertArrayEquals(key, db.get(key));
        }
    }
}
