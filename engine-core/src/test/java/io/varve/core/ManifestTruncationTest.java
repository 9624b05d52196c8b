package io.varve.core;

import io.varve.base.CorruptionException;
import io.varve.core.compaction.CompactionSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A manifest cut short at any length either makes open refuse with a {@link CorruptionException} naming the
 * manifest, or opens a database that still holds every key: never an older state served as if it were whole.
 */
class ManifestTruncationTest {

    private static final int KEYS = 3000;

    @Test
    void everyTruncationRefusesOrKeepsEveryKey(@TempDir Path root) throws IOException {
        Path source = root.resolve("source");
        Options options = Options.defaults().withWriteBufferSize(64 << 10)
                .withCompactionSettings(new CompactionSettings(2, 64 << 10, 4, 16 << 10));
        try (Db db = Db.open(source, options)) {
            for (int i = 0; i < KEYS; i++) {
                db.put(key(i), value(i));
                if (i % 700 == 699) {
                    db.flush();
                }
            }
            db.flush();
            db.compactRange(null, null);
        }
        Path manifest = currentManifest(source);
        long size = Files.size(manifest);
        int refused = 0;
        int opened = 0;
        for (long cut = 0; cut < size; cut++) {
            Path copy = root.resolve("cut-" + cut);
            copyDirectory(source, copy);
            try (FileChannel channel = FileChannel.open(copy.resolve(manifest.getFileName()), StandardOpenOption.WRITE)) {
                channel.truncate(cut);
            }
            try (Db db = Db.open(copy, options)) {
                for (int i = 0; i < KEYS; i++) {
                    byte[] got = db.get(key(i));
                    if (got == null) {
                        fail("manifest cut to " + cut + " of " + size + " bytes opened without key " + i);
                    }
                    assertArrayEquals(value(i), got);
                }
                opened++;
            } catch (CorruptionException e) {
                assertEquals(manifest.getFileName(), e.file().getFileName(), e.getMessage());
                refused++;
            }
            deleteDirectory(copy);
        }
        assertTrue(refused > 0, "cutting the manifest never lost an edit: the test proves nothing");
        assertTrue(opened + refused == size);
    }

    @Test
    void aDirectoryWithTablesButNoCurrentIsRefused(@TempDir Path dir) throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            db.put(key(1), value(1));
            db.flush();
        }
        Files.delete(dir.resolve("CURRENT"));
        CorruptionException refused = assertThrows(CorruptionException.class, () -> Db.open(dir, Options.defaults()));
        assertEquals("CURRENT", refused.file().getFileName().toString());
    }

    @Test
    void aDirectoryWithOnlyLogsAndNoCurrentReplaysThem(@TempDir Path dir) throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            db.put(key(1), value(1));
        }
        for (String name : List.of("CURRENT")) {
            Files.delete(dir.resolve(name));
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                if (file.getFileName().toString().startsWith("MANIFEST")) {
                    Files.delete(file);
                }
            }
        }
        try (Db db = Db.open(dir, Options.defaults())) {
            assertArrayEquals(value(1), db.get(key(1)));
        }
    }

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
    }

    private static Path currentManifest(Path dir) throws IOException {
        String name = Files.readString(dir.resolve("CURRENT")).strip();
        return dir.resolve(name);
    }

    private static void copyDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.toList()) {
                if (!file.getFileName().toString().equals("LOCK")) {
                    Files.copy(file, to.resolve(file.getFileName()));
                }
            }
        }
    }

    private static void deleteDirectory(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.toList();
            for (Path file : all) {
                Files.delete(file);
            }
        }
        try {
            Files.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
