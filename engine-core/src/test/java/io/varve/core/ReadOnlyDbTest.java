package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbFiles;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import io.varve.core.ingest.IngestOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Db#openReadOnly}: what it refuses, what it sees, that it changes nothing on disk, and that read-only
 * instances and a busy writer on one directory do not disturb each other.
 */
class ReadOnlyDbTest {

    private static final Path DIR = Path.of("/db");
    /** Keys of the concurrent writer: value n goes to key n % KEYS, so any prefix of its writes is computable. */
    private static final int KEYS = 500;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] key(int n) {
        return bytes(String.format("k%05d", n));
    }

    private static Options small(FileSystem fs) {
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(new CompactionSettings(2, 64 << 10, 4, 16 << 10));
    }

    @Test
    void missingDirectoryOrDatabaseIsRefusedClearly(@TempDir Path tmp) throws IOException {
        NoSuchFileException missing = assertThrows(NoSuchFileException.class,
                () -> Db.openReadOnly(tmp.resolve("absent"), Options.defaults()));
        assertTrue(missing.getMessage().contains("no such directory"), missing.getMessage());
        assertFalse(Files.exists(tmp.resolve("absent")));

        Path empty = Files.createDirectory(tmp.resolve("empty"));
        NoSuchFileException noCurrent = assertThrows(NoSuchFileException.class,
                () -> Db.openReadOnly(empty, Options.defaults()));
        assertTrue(noCurrent.getMessage().contains("no CURRENT"), noCurrent.getMessage());
        try (Stream<Path> files = Files.list(empty)) {
            assertEquals(0, files.count(), "the failed open created files");
        }
    }

    @Test
    void everyWriteIsRefusedNamingTheDirectory() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db writer = Db.open(DIR, small(fs))) {
            writer.put(key(1), bytes("one"));
        }
        try (Db db = Db.openReadOnly(DIR, small(new NoWriteFileSystem(fs)))) {
            ColumnFamily family = db.defaultColumnFamily();
            MemorySegment k = MemorySegment.ofArray(key(2));
            List<Executable> writes = List.of(
                    () -> db.put(key(2), bytes("x")),
                    () -> db.put(WriteOptions.SYNC, key(2), bytes("x")),
                    () -> db.put(WriteOptions.DEFAULT, k, k),
                    () -> db.put(family, key(2), bytes("x")),
                    () -> db.delete(key(1)),
                    () -> db.delete(family, key(1)),
                    () -> db.deleteRange(key(0), key(9)),
                    () -> db.write(new WriteBatch().put(key(2), bytes("x")), WriteOptions.DEFAULT),
                    db::beginTransaction,
                    db::flush,
                    () -> db.compactRange(null, null),
                    () -> db.deleteFilesInRange(family, null, null),
                    () -> db.createColumnFamily("b", ColumnFamilyOptions.defaults()),
                    () -> db.dropColumnFamily(family),
                    () -> db.ingestExternalFiles(List.of(Path.of("/x.sst")), IngestOptions.defaults()),
                    () -> db.checkpoint(Path.of("/copy")),
                    db::syncWal,
                    db::rangeLatch);
            for (Executable write : writes) {
                ReadOnlyDbException refused = assertThrows(ReadOnlyDbException.class, write);
                assertTrue(refused.getMessage().contains(DIR.toString())
                        && refused.getMessage().contains("read-only"), refused.getMessage());
            }
            assertEquals("one", text(db.get(key(1))));
            assertNull(db.get(key(2)));
        }
        try (Db db = Db.open(DIR, small(fs))) {
            assertEquals("one", text(db.get(key(1))));
            assertNull(db.get(key(2)));
        }
    }

    @Test
    void seesTheUnflushedLogTailFrozenAtItsOpen() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options options = small(fs);
        try (Db writer = Db.open(DIR, options)) {
            ColumnFamily a = writer.createColumnFamily("a", ColumnFamilyOptions.defaults());
            writer.put(key(1), bytes("flushed"));
            writer.flush();
            writer.put(key(1), bytes("in the log"));
            writer.put(a, key(2), bytes("family a"));
            try (Db view = Db.openReadOnly(DIR, options.withFileSystem(new NoWriteFileSystem(fs)))) {
                writer.put(key(1), bytes("after the open"));
                writer.put(key(3), bytes("new"));
                writer.flush();
                assertEquals("in the log", text(view.get(key(1))));
                assertNull(view.get(key(3)));
                ColumnFamily viewA = view.columnFamily("a").orElseThrow();
                assertEquals(List.of("default", "a"), view.columnFamilies().stream().map(ColumnFamily::name).toList());
                assertEquals("family a", text(view.get(viewA, key(2))));
                assertThrows(IllegalArgumentException.class, () -> view.get(writer.defaultColumnFamily(), key(1)));
                assertEquals(1, view.getLongProperty("varve.num-files-at-level0"));
                assertEquals(0, view.getLongProperty("varve.is-write-stopped"));
                assertTrue(view.getLongProperty("varve.cur-size-all-mem-tables") > 0);
                assertEquals(1, view.getApproximateSizes(List.of(new Db.Range(null, null))).size());
                try (Db later = Db.openReadOnly(DIR, options.withFileSystem(new NoWriteFileSystem(fs)))) {
                    assertEquals("after the open", text(later.get(key(1))));
                    assertEquals("new", text(later.get(key(3))));
                }
            }
        }
    }

    @Test
    void tablesTheWriterDeletesStayReadable() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        tablesTheWriterDeletesStayReadable(DIR, small(fs), small(new NoWriteFileSystem(fs)));
    }

    /** The same on a real file system: the mappings and open files must outlive the writer's unlinking. */
    @Test
    void tablesTheWriterDeletesFromARealDirectoryStayReadable(@TempDir Path dir) throws IOException {
        Options options = Options.defaults().withWriteBufferSize(64 << 10)
                .withCompactionSettings(new CompactionSettings(2, 64 << 10, 4, 16 << 10));
        tablesTheWriterDeletesStayReadable(dir, options, options);
    }

    private static void tablesTheWriterDeletesStayReadable(Path dir, Options writing, Options reading)
            throws IOException {
        try (Db writer = Db.open(dir, writing)) {
            for (int i = 0; i < 300; i++) {
                writer.put(key(i), bytes("v" + i));
                if (i % 100 == 99) {
                    writer.flush();
                }
            }
            DbTestAccess.awaitCompactions(writer);
            List<String> tablesAtOpen = tables(writing.fileSystem(), dir);
            try (Db view = Db.openReadOnly(dir, reading)) {
                for (int i = 0; i < 300; i++) {
                    writer.put(key(i), bytes("overwritten"));
                }
                writer.compactRange(null, null);
                DbTestAccess.awaitReclaimed(writer);
                List<String> now = tables(writing.fileSystem(), dir);
                assertTrue(tablesAtOpen.stream().noneMatch(now::contains),
                        () -> "the writer kept the old tables " + tablesAtOpen + " (now " + now + ")");
                TreeMap<String, String> expected = new TreeMap<>();
                for (int i = 0; i < 300; i++) {
                    expected.put(text(key(i)), "v" + i);
                }
                assertEquals(expected, contents(view, null));
                assertEquals("v7", text(view.get(key(7))));
            }
        }
    }

    private static List<String> tables(FileSystem fs, Path dir) throws IOException {
        return fs.list(dir).stream().filter(n -> n.endsWith(DbFiles.TABLE_SUFFIX)).toList();
    }

    /**
     * The race the open guards against, forced: the writer flushes and deletes the log holding the tail just
     * after the read-only open read the manifest and before it lists the logs. That first attempt misses the
     * tail; the open must notice and start again.
     */
    @Test
    void aFlushBetweenReadingTheManifestAndListingTheLogsIsRetried() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options options = small(fs);
        try (Db writer = Db.open(DIR, options)) {
            writer.put(key(1), bytes("flushed"));
            writer.flush();
            writer.put(key(2), bytes("only in the log"));
            AtomicBoolean raced = new AtomicBoolean();
            ForwardingFileSystem racing = new ForwardingFileSystem(new NoWriteFileSystem(fs)) {
                @Override
                public List<String> list(Path dir) throws IOException {
                    if (raced.compareAndSet(false, true)) {
                        writer.flush();
                        DbTestAccess.awaitReclaimed(writer);
                    }
                    return super.list(dir);
                }
            };
            try (Db view = Db.openReadOnly(DIR, options.withFileSystem(racing))) {
                assertTrue(raced.get());
                assertEquals("flushed", text(view.get(key(1))));
                assertEquals("only in the log", text(view.get(key(2))));
            }
        }
    }

    @Test
    void closingWithOpenIteratorsAndSnapshotsIsSafe() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db writer = Db.open(DIR, small(fs))) {
            writer.put(key(1), bytes("a"));
            writer.put(key(2), bytes("b"));
        }
        Db db = Db.openReadOnly(DIR, small(new NoWriteFileSystem(fs)));
        DbIterator it = db.iterator();
        it.seekToFirst();
        Snapshot snapshot = db.snapshot();
        assertEquals("a", text(db.get(ReadOptions.at(snapshot), key(1))));
        db.close();
        assertThrows(IllegalStateException.class, it::next);
        it.close();
        snapshot.close();
        assertThrows(IllegalStateException.class, () -> db.get(key(1)));
        assertThrows(IllegalStateException.class, () -> db.put(key(1), bytes("x")));
        db.close();
    }

    /** Name, size and modification time of every file, recursively. */
    private static Map<String, List<Object>> listing(Path dir) throws IOException {
        Map<String, List<Object>> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                files.put(dir.relativize(p).toString(), List.of(a.size(), a.lastModifiedTime(), a.isDirectory()));
            }
        }
        return files;
    }

    @Test
    void leavesARealDirectoryByteForByteAsItWasBesideAnOpenWriter(@TempDir Path dir) throws Exception {
        Options options = Options.defaults().withWriteBufferSize(64 << 10);
        try (Db writer = Db.open(dir, options)) {
            for (int i = 0; i < 2000; i++) {
                writer.put(key(i), bytes("value " + i));
            }
            writer.flush();
            for (int i = 2000; i < 2100; i++) {
                writer.put(key(i), bytes("value " + i)); // a log tail, far from filling a memtable
            }
            // The writer's own background work (compaction, deleting obsolete logs and tables, preparing
            // the next log) must be over, or it would change the directory during the comparison.
            DbTestAccess.awaitCompactions(writer);
            DbTestAccess.awaitReclaimed(writer);
            DbTestAccess.awaitLogWorker(writer);
            DbTestAccess.awaitReclaimed(writer);
            Map<String, List<Object>> before = listing(dir);
            Map<Path, byte[]> contents = new TreeMap<>();
            for (String name : before.keySet()) {
                Path p = dir.resolve(name);
                if (Files.isRegularFile(p)) {
                    contents.put(p, Files.readAllBytes(p));
                }
            }
            try (Db view = Db.openReadOnly(dir, options)) {
                assertEquals(2100, contents(view, null).size());
                assertEquals("value 1500", text(view.get(key(1500))));
                assertEquals("value 2050", text(view.get(key(2050))));
            }
            assertEquals(before, listing(dir));
            for (Map.Entry<Path, byte[]> e : contents.entrySet()) {
                assertArrayEquals(e.getValue(), Files.readAllBytes(e.getKey()), e.getKey().toString());
            }
        }
    }

    /**
     * One writer writing value n to key n % KEYS, flushing and compacting, and two threads opening read-only
     * instances over and over. A view must hold exactly the first p writes for some p at least the writes
     * acknowledged before its open began, and must stay that way through the writer's next flush and full
     * compaction (which delete the tables it opened).
     */
    @Test
    void twoReadOnlyInstancesBesideABusyWriter() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        Options options = small(fs);
        Options readOnly = options.withFileSystem(new NoWriteFileSystem(fs));
        AtomicLong acknowledged = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Semaphore> compacted = List.of(new Semaphore(0), new Semaphore(0));
        try (Db writer = Db.open(DIR, options)) {
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                long n = 0;
                while (!stop.get()) {
                    writer.put(key((int) (n % KEYS)), bytes(Long.toString(n)));
                    acknowledged.set(++n);
                    if (n % 2000 == 0) {
                        writer.flush();
                    }
                    if (n % 6000 == 0) {
                        writer.compactRange(null, null);
                        compacted.forEach(Semaphore::release);
                    }
                }
            });
            List<CompletableFuture<Integer>> readers = new ArrayList<>();
            for (Semaphore gate : compacted) {
                readers.add(CompletableFuture.supplyAsync(() -> {
                    int opened = 0;
                    try {
                        for (; opened < 6; opened++) {
                            long floor = acknowledged.get();
                            try (Db view = Db.openReadOnly(DIR, readOnly)) {
                                TreeMap<String, String> seen = contents(view, null);
                                assertPrefix(seen, floor);
                                gate.drainPermits();
                                assertTrue(gate.tryAcquire(1, TimeUnit.MINUTES), "writer stopped compacting");
                                assertEquals(seen, contents(view, null), "the view changed");
                            }
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                    return opened;
                }));
            }
            try {
                for (CompletableFuture<Integer> reader : readers) {
                    assertEquals(6, reader.get(5, TimeUnit.MINUTES));
                }
            } finally {
                stop.set(true);
                writing.get(1, TimeUnit.MINUTES);
            }
        }
    }

    /** {@code seen} must be the state after the first p writes, for some p >= floor. */
    private static void assertPrefix(TreeMap<String, String> seen, long floor) {
        long p = seen.values().stream().mapToLong(Long::parseLong).max().orElse(-1) + 1;
        assertTrue(p >= floor, () -> "the view holds " + p + " writes; " + floor + " were acknowledged before");
        TreeMap<String, String> expected = new TreeMap<>();
        for (long k = 0; k < Math.min(p, KEYS); k++) {
            long last = k + KEYS * ((p - 1 - k) / KEYS);
            expected.put(text(key((int) k)), Long.toString(last));
        }
        assertEquals(expected, seen, "not the state after the first " + p + " writes");
    }

    private static TreeMap<String, String> contents(Db db, ColumnFamily family) {
        TreeMap<String, String> result = new TreeMap<>();
        ColumnFamily f = family != null ? family : db.defaultColumnFamily();
        try (DbIterator it = db.iterator(ReadOptions.DEFAULT, f)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                result.put(text(it.key()), text(it.value()));
            }
        }
        return result;
    }
}
