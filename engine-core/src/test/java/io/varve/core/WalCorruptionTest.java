package io.varve.core;

import io.varve.core.internal.DbRecovery;
import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Damaged logs, and what each recovery mode promises about them. */
class WalCorruptionTest {

    private static final int RECORDS = 200;

    @TempDir
    Path dir;

    private Path writeLog() throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            for (int i = 0; i < RECORDS; i++) {
                db.put(key(i), value(i));
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> logs = files.filter(p -> p.toString().endsWith(".log")).sorted().toList();
            // The first log holds the data; the one opened at close-time reopen is absent until we open again.
            return logs.getFirst();
        }
    }

    private static byte[] key(int i) {
        return String.format("key%05d", i).getBytes();
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(i % 50)).getBytes();
    }

    private static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ 0x5A));
            ch.write(b.flip(), offset);
        }
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }

    /** Keys 0..n-1 present with their values, the rest absent. */
    private static int presentPrefix(Db db) {
        int n = 0;
        while (n < RECORDS && db.get(key(n)) != null) {
            assertArrayEquals(value(n), db.get(key(n)));
            n++;
        }
        for (int i = n; i < RECORDS; i++) {
            assertNull(db.get(key(i)), "hole: key " + i + " present after missing key " + n);
        }
        return n;
    }

    @Test
    void pointInTimeKeepsThePrefixBeforeMidLogDamage() throws IOException {
        Path log = writeLog();
        long size = Files.size(log);
        flipByte(log, size / 2);
        int kept;
        try (Db db = Db.open(dir, Options.defaults())) {
            kept = presentPrefix(db);
            assertTrue(kept > 0 && kept < RECORDS, "kept " + kept);
            db.put(key(RECORDS + 1), value(1));
        }
        // DbRecovery cut the damaged log back, so writes made after it survive the next open.
        try (Db db = Db.open(dir, Options.defaults().withWalRecovery(WalRecoveryMode.ABSOLUTE_CONSISTENCY))) {
            assertEquals(kept, presentPrefix(db));
            assertArrayEquals(value(1), db.get(key(RECORDS + 1)));
        }
    }

    @Test
    void absoluteConsistencyRefusesDamageNamingFileAndOffset() throws IOException {
        Path log = writeLog();
        long size = Files.size(log);
        flipByte(log, size / 2);
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> Db.open(dir, Options.defaults().withWalRecovery(WalRecoveryMode.ABSOLUTE_CONSISTENCY)));
        assertEquals(log.getFileName(), e.file().getFileName());
        assertTrue(e.offset() >= 0 && e.offset() <= size / 2, "offset " + e.offset());
        assertTrue(e.getMessage().contains(log.getFileName().toString()));
        // Refusing must not have changed anything: a tolerant mode still recovers the prefix afterwards.
        try (Db db = Db.open(dir, Options.defaults())) {
            int kept = presentPrefix(db);
            assertTrue(kept > 0 && kept < RECORDS);
        }
    }

    @Test
    void tolerateCorruptedTailAcceptsATornTailButNotMidLogDamage() throws IOException {
        Path log = writeLog();
        long size = Files.size(log);
        truncate(log, size - 7);
        try (Db db = Db.open(dir, Options.defaults().withWalRecovery(WalRecoveryMode.TOLERATE_CORRUPTED_TAIL))) {
            assertEquals(RECORDS - 1, presentPrefix(db));
        }
    }

    @Test
    void tolerateCorruptedTailRefusesMidLogDamage() throws IOException {
        Path log = writeLog();
        flipByte(log, Files.size(log) / 3);
        assertThrows(CorruptionException.class,
                () -> Db.open(dir, Options.defaults().withWalRecovery(WalRecoveryMode.TOLERATE_CORRUPTED_TAIL)));
    }

    /**
     * A crash that lost a middle sector of the log's unsynced bytes and kept later blocks: the default mode keeps
     * everything before the hole (every synced write precedes the first unsynced byte); the tail-tolerant mode
     * cannot tell the hole from damage inside the log, which the format records no sync point to rule out, and
     * refuses it, naming the log, as RocksDB's kTolerateCorruptedTailRecords does. The refusal changes nothing.
     * (A hole in the last block of a log reads as its end in every mode: no later block shows the log went on.)
     */
    @Test
    void aZeroFilledSectorBeforeKeptBlocksRecoversThePrefixInTheDefaultMode() throws IOException {
        int records = 1000; // three blocks of log, so records survive in a block after the hole
        try (Db db = Db.open(dir, Options.defaults())) {
            for (int i = 0; i < records; i++) {
                db.put(key(i), value(i));
            }
        }
        Path log;
        try (Stream<Path> files = Files.list(dir)) {
            log = files.filter(p -> p.toString().endsWith(".log")).sorted().toList().getFirst();
        }
        long hole = 8 * 512; // inside the first 32 KiB block
        assertTrue(Files.size(log) > 2 * 32 * 1024, "the log reaches a third block");
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(512), hole);
        }
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> Db.open(dir, Options.defaults().withWalRecovery(WalRecoveryMode.TOLERATE_CORRUPTED_TAIL)));
        assertEquals(log.getFileName(), e.file().getFileName());
        assertTrue(e.offset() <= hole + 512, "offset " + e.offset() + ", hole at " + hole);
        int kept = 0;
        try (Db db = Db.open(dir, Options.defaults())) {
            while (kept < records && db.get(key(kept)) != null) {
                assertArrayEquals(value(kept), db.get(key(kept)));
                kept++;
            }
            for (int i = kept; i < records; i++) {
                assertNull(db.get(key(i)), "hole: key " + i + " present after missing key " + kept);
            }
            assertTrue(kept > 0 && kept < 100, "kept " + kept);
        }
        try (Db db = Db.open(dir, Options.defaults().withWalRecovery(WalRecoveryMode.ABSOLUTE_CONSISTENCY))) {
            assertArrayEquals(value(kept - 1), db.get(key(kept - 1)));
            assertNull(db.get(key(kept)), "the log was cut at the hole");
        }
    }

    @Test
    void absoluteConsistencyRefusesATornTail() throws IOException {
        Path log = writeLog();
        truncate(log, Files.size(log) - 3);
        assertThrows(CorruptionException.class,
                () -> Db.open(dir, Options.defaults().withWalRecovery(WalRecoveryMode.ABSOLUTE_CONSISTENCY)));
    }

    @Test
    void everyTruncationPointRecoversAPrefix() throws IOException {
        // The same log cut at every 97th byte, each cut opened afresh: on the in-memory file system, since a
        // real disk's syncs would make the 150 opens the slowest test of the module, and cutting is all it does.
        Path root = Path.of("/db");
        MemFileSystem written = new MemFileSystem();
        try (Db db = Db.open(root, Options.defaults().withFileSystem(written))) {
            for (int i = 0; i < RECORDS; i++) {
                db.put(key(i), value(i));
            }
        }
        Path log = root.resolve(written.list(root).stream().filter(n -> n.endsWith(".log")).sorted()
                .findFirst().orElseThrow());
        ByteBuffer original = ByteBuffer.allocate((int) written.size(log));
        try (ReadableFile file = written.openReadable(log)) {
            file.read(original, 0);
        }
        int previous = RECORDS;
        for (int size = original.capacity(); size >= 0; size -= 97) {
            MemFileSystem fs = new MemFileSystem();
            fs.createDirectories(root);
            try (WritableFile file = fs.create(log)) {
                file.write(original.duplicate().flip().limit(size));
                file.sync();
            }
            try (Db db = Db.open(root, Options.defaults().withFileSystem(fs))) {
                int kept = presentPrefix(db);
                assertTrue(kept <= previous, "shorter log recovered more");
                previous = kept;
            }
        }
        assertEquals(0, previous);
    }
}
