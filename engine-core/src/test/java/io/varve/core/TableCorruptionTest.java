package io.varve.core;

import io.varve.base.CorruptionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Damaged table files seen through the database: a clear error naming file and offset, never wrong data. */
class TableCorruptionTest {

    private static final int KEYS = 2000;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes();
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-".repeat(i % 40)).getBytes();
    }

    private Path writeTable() throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            for (int i = 0; i < KEYS; i++) {
                db.put(key(i), value(i));
            }
            db.flush();
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> tables = files.filter(p -> p.toString().endsWith(".sst")).toList();
            assertEquals(1, tables.size(), "one flushed table");
            return tables.getFirst();
        }
    }

    @Test
    void flushedDataIsReadFromTheTableAfterReopen() throws IOException {
        writeTable();
        try (Db db = Db.open(dir, Options.defaults())) {
            for (int i = 0; i < KEYS; i += 13) {
                assertArrayEquals(value(i), db.get(key(i)));
            }
            int n = 0;
            try (DbIterator it = db.iterator()) {
                for (it.seekToLast(); it.valid(); it.prev()) {
                    n++;
                }
            }
            assertEquals(KEYS, n);
        }
    }

    @Test
    void aFlippedByteInADataBlockIsReportedWithFileAndOffset() throws IOException {
        Path table = writeTable();
        flip(table, 100);
        try (Db db = Db.open(dir, Options.defaults())) {
            int corrupt = 0;
            for (int i = 0; i < KEYS; i++) {
                try {
                    byte[] v = db.get(key(i));
                    // Blocks other than the damaged one still answer, and answer correctly.
                    assertArrayEquals(value(i), v, "wrong data for key " + i);
                } catch (UncheckedIOException e) {
                    CorruptionException c = assertInstanceOfCause(e);
                    assertEquals(table.getFileName(), c.file().getFileName());
                    assertTrue(c.offset() <= 100, "offset " + c.offset() + " should be the damaged block's");
                    corrupt++;
                }
            }
            assertTrue(corrupt > 0, "the damaged block must be detected");
            assertThrows(UncheckedIOException.class, () -> {
                try (DbIterator it = db.iterator()) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        // walk into the damaged block
                    }
                }
            });
        }
    }

    @Test
    void aTruncatedTableIsRefusedAtOpen() throws IOException {
        Path table = writeTable();
        byte[] bytes = Files.readAllBytes(table);
        Files.write(table, Arrays.copyOf(bytes, bytes.length / 2));
        CorruptionException c = assertThrows(CorruptionException.class, () -> Db.open(dir, Options.defaults()));
        assertEquals(table.getFileName(), c.file().getFileName());
    }

    private static CorruptionException assertInstanceOfCause(UncheckedIOException e) {
        assertTrue(e.getCause() instanceof CorruptionException, "cause should be a CorruptionException: " + e.getCause());
        return (CorruptionException) e.getCause();
    }

    private static void flip(Path file, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ 0x40));
            ch.write(b.flip(), offset);
        }
    }
}
