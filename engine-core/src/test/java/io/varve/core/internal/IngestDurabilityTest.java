package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.ingest.IngestOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.varve.core.IngestFixtures.bytes;
import static io.varve.core.IngestFixtures.external;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An ingestion is durable when it returns, and the durability contract's "no holes" rule says every write
 * acknowledged before it must then survive a machine crash too, synced or not: the recovered state is a
 * prefix of the writes in order. So the ingestion must make the log durable before its manifest record. And
 * once that record is synced the tables are the database's: an error after it must not delete them.
 */
class IngestDurabilityTest {

    private static final Path DIR = Path.of("/db");
    private static final Path EXT = Path.of("/ext");

    @Test
    void unsyncedWritesBeforeAnIngestionSurviveACrashWithIt() throws IOException {
        MemFileSystem disk = new MemFileSystem();
        disk.createDirectories(EXT);
        Options options = Options.defaults().withFileSystem(disk);
        Path file = external(disk, EXT.resolve("later.sst"), "default", new TreeMap<>(Map.of("m", "ingested")));
        try (Db db = Db.open(DIR, options)) {
            db.put(bytes("a"), bytes("unsynced"));
            db.ingestExternalFiles(List.of(file), IngestOptions.defaults());
            disk.crash();
        } catch (IllegalStateException | IOException | UncheckedIOException e) {
            // closing after the crash fails: the old handles are gone
        }
        try (Db db = Db.open(DIR, options)) {
            assertArrayEquals(bytes("ingested"), db.get(bytes("m")));
            assertArrayEquals(bytes("unsynced"), db.get(bytes("a")), "a write acknowledged before the ingestion "
                    + "was lost while the ingestion survived: a hole");
        }
    }

    @Test
    void aFailureAfterTheManifestRecordKeepsTheTablesItNames() throws IOException {
        MemFileSystem disk = new MemFileSystem();
        disk.createDirectories(EXT);
        ManifestSyncHook fs = new ManifestSyncHook(disk);
        Options options = Options.defaults().withFileSystem(fs);
        Path file = external(disk, EXT.resolve("later.sst"), "default", new TreeMap<>(Map.of("m", "ingested")));
        try (Db db = Db.open(DIR, options)) {
            // The write path fails (a log write elsewhere, say) just after the ingestion's record is synced.
            fs.afterManifestSync = () -> ((DbImpl) db).pipeline().failFromBackground(new IOException("log failed"));
            assertThrows(UncheckedIOException.class, () -> db.ingestExternalFiles(List.of(file),
                    IngestOptions.defaults()));
            fs.afterManifestSync = null;
        } catch (IOException | UncheckedIOException e) {
            // close reports the failure
        }
        try (Db db = Db.open(DIR, options)) {
            assertArrayEquals(bytes("ingested"), db.get(bytes("m")));
        }
    }

    /** Runs a hook after a manifest's sync returned, on the syncing thread. */
    private static final class ManifestSyncHook extends ForwardingFileSystem {
        volatile Runnable afterManifestSync;

        ManifestSyncHook(MemFileSystem disk) {
            super(disk);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            WritableFile file = super.create(path);
            return !path.getFileName().toString().startsWith("MANIFEST") ? file : new ForwardingWritableFile(file) {
                @Override
                public void sync() throws IOException {
                    super.sync();
                    Runnable hook = afterManifestSync;
                    if (hook != null) {
                        hook.run();
                    }
                }
            };
        }
    }
}
