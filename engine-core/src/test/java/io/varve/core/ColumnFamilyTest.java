package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbFiles;
import io.varve.core.compaction.CompactionFilter;
import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Column families: separate key spaces, atomic batches across them, per-family options, and dropping. */
class ColumnFamilyTest {

    private static final Path DIR = Path.of("/families");

    private static Options options(MemFileSystem fs) {
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
    }

    @Test
    void familiesAreSeparateKeySpaces() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            ColumnFamily users = db.createColumnFamily("users", ColumnFamilyOptions.defaults());
            db.put("k".getBytes(), "default".getBytes());
            db.put(users, "k".getBytes(), "users".getBytes());
            db.flush();
            assertArrayEquals("default".getBytes(), db.get("k".getBytes()));
            assertArrayEquals("users".getBytes(), db.get(users, "k".getBytes()));
            db.delete(users, "k".getBytes());
            assertNull(db.get(users, "k".getBytes()));
            assertArrayEquals("default".getBytes(), db.get("k".getBytes()));
            assertEquals(List.of("default", "users"), db.columnFamilies().stream().map(ColumnFamily::name).toList());
        }
    }

    @Test
    void aBatchAcrossFamiliesIsSeenWholeOrNotAtAll() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            ColumnFamily a = db.createColumnFamily("a", ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10));
            ColumnFamily b = db.createColumnFamily("b", ColumnFamilyOptions.defaults().withWriteBufferSize(128 << 10));
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    // Enough writes to rotate and flush both families many times while the reader checks.
                    for (int i = 0; i < 20_000 && failure.get() == null; i++) {
                        byte[] value = Integer.toString(i).getBytes();
                        db.write(new WriteBatch().put(a, "x".getBytes(), value).put(b, "x".getBytes(), value)
                                .put(a, ("pad" + i).getBytes(), new byte[40]), WriteOptions.DEFAULT);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    done.set(true);
                }
            });
            int checks = 0;
            while (!done.get() || checks == 0) {
                try (Snapshot snapshot = db.snapshot()) {
                    byte[] inA = db.get(ReadOptions.at(snapshot), a, "x".getBytes());
                    byte[] inB = db.get(ReadOptions.at(snapshot), b, "x".getBytes());
                    assertArrayEquals(inA, inB, "one batch's writes to two families seen apart");
                }
                checks++;
            }
            writer.join();
            assertNull(failure.get());
        }
    }

    @Test
    void familiesSurviveReopenWithTheirData() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            ColumnFamily a = db.createColumnFamily("a", ColumnFamilyOptions.defaults());
            db.put(a, "flushed".getBytes(), "1".getBytes());
            db.flush();
            db.put(a, "logged".getBytes(), "2".getBytes()); // only in the log at close
        }
        try (Db db = Db.open(DIR, options(fs))) {
            ColumnFamily a = db.columnFamily("a").orElseThrow();
            assertArrayEquals("1".getBytes(), db.get(a, "flushed".getBytes()));
            assertArrayEquals("2".getBytes(), db.get(a, "logged".getBytes()));
            assertNull(db.get("flushed".getBytes()));
        }
    }

    @Test
    void droppingAFamilyDeletesItsTablesOnceReadersAreDone() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            db.put("keep".getBytes(), "me".getBytes());
            ColumnFamily doomed = db.createColumnFamily("doomed", ColumnFamilyOptions.defaults());
            for (int i = 0; i < 100; i++) {
                db.put(doomed, ("k" + i).getBytes(), new byte[100]);
            }
            db.flush();
            long tablesBefore = tables(fs);
            DbIterator open = db.iterator(ReadOptions.DEFAULT, doomed);
            db.dropColumnFamily(doomed);
            assertThrows(IllegalArgumentException.class, () -> db.get(doomed, "k1".getBytes()));
            assertThrows(IllegalArgumentException.class, () -> db.put(doomed, "k".getBytes(), "v".getBytes()));
            assertThrows(IllegalArgumentException.class,
                    () -> db.write(new WriteBatch().put(doomed, "k".getBytes(), "v".getBytes()), WriteOptions.DEFAULT));
            // An iterator opened before the drop still reads the family's tables.
            int seen = 0;
            for (open.seekToFirst(); open.valid(); open.next()) {
                seen++;
            }
            assertEquals(100, seen);
            DbTestAccess.awaitReclaimed(db);
            assertEquals(tablesBefore, tables(fs), "tables deleted while an iterator still reads them");
            open.close();
            DbTestAccess.awaitReclaimed(db);
            assertTrue(tables(fs) < tablesBefore, "the dropped family's tables were not deleted");
        }
        try (Db db = Db.open(DIR, options(fs))) {
            assertTrue(db.columnFamily("doomed").isEmpty());
            assertArrayEquals("me".getBytes(), db.get("keep".getBytes()));
            // The name is free again, and the new family starts empty.
            ColumnFamily again = db.createColumnFamily("doomed", ColumnFamilyOptions.defaults());
            assertNull(db.get(again, "k1".getBytes()));
        }
    }

    @Test
    void eachFamilyUsesItsOwnCompactionFilter() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        CompactionFilter dropAll = (level, key, value) -> CompactionFilter.REMOVE;
        try (Db db = Db.open(DIR, options(fs))) {
            ColumnFamily filtered = db.createColumnFamily("filtered",
                    ColumnFamilyOptions.defaults().withCompactionFilter(dropAll));
            db.put(filtered, "k".getBytes(), "v".getBytes());
            db.put("k".getBytes(), "v".getBytes());
            db.compactRange(filtered, null, null);
            db.compactRange(null, null);
            assertNull(db.get(filtered, "k".getBytes()));
            assertArrayEquals("v".getBytes(), db.get("k".getBytes()));
        }
    }

    @Test
    void misuseIsRefusedClearly() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs)); Db other = Db.open(Path.of("/other"), options(fs))) {
            ColumnFamily mine = db.createColumnFamily("x", ColumnFamilyOptions.defaults());
            assertThrows(IllegalArgumentException.class, () -> db.createColumnFamily("x", ColumnFamilyOptions.defaults()));
            assertThrows(IllegalArgumentException.class, () -> db.createColumnFamily("", ColumnFamilyOptions.defaults()));
            assertThrows(IllegalArgumentException.class, () -> db.dropColumnFamily(db.defaultColumnFamily()));
            assertThrows(IllegalArgumentException.class, () -> other.put(mine, "k".getBytes(), "v".getBytes()));
            assertThrows(IllegalArgumentException.class, () -> new WriteBatch().put(mine, "k".getBytes(), "v".getBytes())
                    .put(other.defaultColumnFamily(), "k".getBytes(), "v".getBytes()));
            WriteBatch batch = new WriteBatch().put(mine, "k".getBytes(), "v".getBytes());
            assertThrows(IllegalArgumentException.class, () -> other.write(batch, WriteOptions.DEFAULT));
        }
    }

    private static long tables(MemFileSystem fs) throws IOException {
        return fs.list(DIR).stream().filter(n -> n.endsWith(DbFiles.TABLE_SUFFIX)).count();
    }
}
