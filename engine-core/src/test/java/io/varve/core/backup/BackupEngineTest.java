package io.varve.core.backup;

import io.varve.base.CorruptionException;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.Db;
import io.varve.core.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackupEngineTest {

    @Test
    void aSecondBackupSharesTheTablesTheFirstStored(@TempDir Path root) throws IOException {
        Path db = root.resolve("db");
        fill(db, 0, 2000);
        try (BackupEngine engine = BackupEngine.open(root.resolve("backups"))) {
            BackupInfo first = engine.createBackup(db);
            long tablesAfterFirst = count(root.resolve("backups/shared"));
            fill(db, 2000, 100);
            BackupInfo second = engine.createBackup(db);
            long tablesAfterSecond = count(root.resolve("backups/shared"));
            assertTrue(tablesAfterFirst > 0);
            assertEquals(tablesAfterFirst + 1, tablesAfterSecond, "only the new table is copied");
            assertEquals(List.of(first.id(), second.id()), engine.listBackups().stream().map(BackupInfo::id).toList());

            engine.purgeOldBackups(1);
            assertEquals(List.of(second.id()), engine.listBackups().stream().map(BackupInfo::id).toList());
            engine.restore(second.id(), root.resolve("restored"));
        }
        try (Db restored = Db.open(root.resolve("restored"), Options.defaults())) {
            assertEquals(2100, BackupModelProperties.contents(restored).size());
        }
    }

    @Test
    void aFlippedByteInAnyBackupFileIsCaughtByVerifyAndRefusedByRestore(@TempDir Path root) throws IOException {
        Path db = root.resolve("db");
        fill(db, 0, 500);
        Path backups = root.resolve("backups");
        long id;
        try (BackupEngine engine = BackupEngine.open(backups)) {
            id = engine.createBackup(db).id();
        }
        List<Path> files;
        try (Stream<Path> all = Files.walk(backups)) {
            files = all.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().equals("LOCK"))
                    .filter(p -> p.toFile().length() > 0)
                    .filter(p -> !p.getParent().getFileName().toString().equals("meta")).toList();
        }
        assertTrue(files.size() >= 3, "tables, manifest and CURRENT at least: " + files);
        for (Path file : files) {
            long size = Files.size(file);
            long offset = size / 2;
            flip(file, offset);
            try (BackupEngine engine = BackupEngine.open(backups)) {
                CorruptionException caught = assertThrows(CorruptionException.class, () -> engine.verifyBackup(id));
                assertEquals(file, caught.file());
                Path target = root.resolve("target-" + file.getFileName());
                assertThrows(CorruptionException.class, () -> engine.restore(id, target));
                assertTrue(!Files.exists(target) || count(target) == 0, "a refused restore leaves nothing");
            }
            flip(file, offset);
        }
        try (BackupEngine engine = BackupEngine.open(backups)) {
            engine.verifyBackup(id);
        }
    }

    @Test
    void aDamagedMetaFileIsNotListed(@TempDir Path root) throws IOException {
        Path db = root.resolve("db");
        fill(db, 0, 10);
        Path backups = root.resolve("backups");
        try (BackupEngine engine = BackupEngine.open(backups)) {
            long id = engine.createBackup(db).id();
            flip(backups.resolve("meta").resolve(Long.toString(id)), 7);
            assertEquals(List.of(), engine.listBackups());
            assertThrows(CorruptionException.class, () -> engine.verifyBackup(id));
        }
    }

    @Test
    void aBackupInterruptedAtAnyOperationIsNeverListedAndLeavesNoGarbage() throws IOException {
        Path dbDir = Path.of("/db");
        Path backups = Path.of("/backups");
        long operations = -1;
        for (long n = 1; operations < 0 || n <= operations; n++) {
            MemFileSystem disk = new MemFileSystem();
            FaultInjectingFileSystem fs = new FaultInjectingFileSystem(disk);
            Options options = Options.defaults().withFileSystem(fs);
            TreeMap<String, String> first;
            try (Db db = Db.open(dbDir, options)) {
                for (int i = 0; i < 50; i++) {
                    db.put(("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8));
                }
                db.flush();
                first = BackupModelProperties.contents(db);
            }
            try (BackupEngine engine = BackupEngine.open(backups, fs)) {
                engine.createBackup(dbDir);
            }
            try (Db db = Db.open(dbDir, options)) {
                db.put("late".getBytes(StandardCharsets.UTF_8), "x".getBytes(StandardCharsets.UTF_8));
                db.flush();
            }
            fs.failAt(n, true);
            boolean failed = false;
            try (BackupEngine engine = BackupEngine.open(backups, fs)) {
                engine.createBackup(dbDir);
            } catch (IOException e) {
                failed = true;
            }
            if (!failed) {
                operations = n - 1;
                assertTrue(operations > 10, "the backup should take many operations");
                break;
            }
            fs.heal();
            disk.crash();
            try (BackupEngine engine = BackupEngine.open(backups, fs)) {
                List<BackupInfo> listed = engine.listBackups();
                assertFalse(listed.isEmpty(), "the first, finished backup survives");
                assertEquals(1, listed.size(), "failure at operation " + n + " left a listed second backup");
                engine.verifyBackup(listed.getFirst().id());
                engine.restore(listed.getFirst().id(), Path.of("/restored"));
            }
            try (Db restored = Db.open(Path.of("/restored"), Options.defaults().withFileSystem(fs))) {
                assertEquals(first, BackupModelProperties.contents(restored));
            }
            assertFalse(disk.list(backups.resolve("meta")).stream().anyMatch(name -> name.endsWith(".tmp")));
            assertEquals(List.of("1"), disk.list(backups.resolve("private")).stream()
                    .filter(name -> !disk.list(backups.resolve("private").resolve(name)).isEmpty()).toList());
        }
    }

    private static void fill(Path dir, int from, int count) throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            for (int i = from; i < from + count; i++) {
                db.put(String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8),
                        ("value-" + i).getBytes(StandardCharsets.UTF_8));
            }
            db.flush();
        }
    }

    private static long count(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.count();
        }
    }

    private static void flip(Path file, long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x10));
            one.rewind();
            channel.write(one, offset);
        }
    }
}
