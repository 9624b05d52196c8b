package io.varve.core;

import io.varve.base.fs.MemFileSystem;
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

/**
 * An ingestion is durable when it returns, and the durability contract's "no holes" rule says every write
 * acknowledged before it must then survive a machine crash too, synced or not: the recovered state is a
 * prefix of the writes in order. So the ingestion must make the log durable before its manifest record.
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
}
