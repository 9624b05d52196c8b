package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The public contract around the data path: arguments, lifecycle, the directory lock, zero-copy reads. */
class DbApiTest {

    @TempDir
    Path dir;

    @Test
    void syncWalMakesEarlierUnsyncedWritesSurviveACrash() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/sync-wal");
        Db db = Db.open(dir, Options.defaults().withFileSystem(fs));
        db.put("before".getBytes(), "1".getBytes());
        db.syncWal();
        db.put("after".getBytes(), "2".getBytes());
        fs.crash();
        try {
            db.close();
        } catch (RuntimeException expected) {
            // the crashed instance's final sync fails
        }
        try (Db reopened = Db.open(dir, Options.defaults().withFileSystem(fs))) {
            assertArrayEquals("1".getBytes(), reopened.get("before".getBytes()));
            assertNull(reopened.get("after".getBytes()), "an unsynced write survived a crash that drops unsynced data");
        }
    }

    @Test
    void memtableOnlyReadsAnswerFromMemtablesAndSayIncompleteOtherwise() throws IOException {
        try (Db db = Db.open(Path.of("/memtable-only"), Options.defaults().withFileSystem(new MemFileSystem()))) {
            ReadOptions memoryOnly = ReadOptions.DEFAULT.withMemtableOnly();
            MemorySegment out = MemorySegment.ofArray(new byte[8]);
            db.put("flushed".getBytes(), "old".getBytes());
            db.put("gone".getBytes(), "x".getBytes());
            db.flush();
            db.put("fresh".getBytes(), "new".getBytes());
            db.delete("gone".getBytes());

            assertEquals(3, db.get(memoryOnly, MemorySegment.ofArray("fresh".getBytes()), out));
            assertArrayEquals("new".getBytes(), out.asSlice(0, 3).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(-1, db.get(memoryOnly, MemorySegment.ofArray("gone".getBytes()), out),
                    "a tombstone in a memtable decides the key");
            assertEquals(ReadOptions.INCOMPLETE, db.get(memoryOnly, MemorySegment.ofArray("flushed".getBytes()), out),
                    "a key only in a table");
            assertEquals(ReadOptions.INCOMPLETE, db.get(memoryOnly, MemorySegment.ofArray("never".getBytes()), out),
                    "an absent key may be in a table as far as memtables know");
            assertEquals(3, db.get(ReadOptions.DEFAULT, MemorySegment.ofArray("flushed".getBytes()), out));

            try (Snapshot before = db.snapshot()) {
                db.put("flushed".getBytes(), "newer".getBytes());
                assertEquals(5, db.get(memoryOnly, MemorySegment.ofArray("flushed".getBytes()), out));
                assertEquals(ReadOptions.INCOMPLETE, db.get(ReadOptions.at(before).withMemtableOnly(),
                        MemorySegment.ofArray("flushed".getBytes()), out), "the snapshot's version is in a table");
            }

            assertThrows(IllegalArgumentException.class, () -> db.get(memoryOnly, "fresh".getBytes()));
            assertThrows(IllegalArgumentException.class, () -> db.iterator(memoryOnly));
        }
    }

    @Test
    void cachedOnlyReadsUseOpenTablesAndCachedBlocksAndSayIncompleteOtherwise() throws IOException {
        byte[] value = new byte[300]; // zeros: the data block compresses, so it goes through the block cache
        try (Db db = Db.open(Path.of("/cached-only"), Options.defaults().withFileSystem(new MemFileSystem()))) {
            ReadOptions cachedOnly = ReadOptions.DEFAULT.withCachedOnly();
            MemorySegment out = MemorySegment.ofArray(new byte[300]);
            MemorySegment key = MemorySegment.ofArray("k".getBytes());
            db.put("k".getBytes(), value);
            db.flush();
            assertEquals(ReadOptions.INCOMPLETE, db.get(cachedOnly, key, out), "the table was never opened");
            assertEquals(300, db.get(ReadOptions.DEFAULT, key, out)); // opens it and caches the block
            assertEquals(300, db.get(cachedOnly, key, out));
            assertArrayEquals(value, out.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(-1, db.get(cachedOnly, MemorySegment.ofArray("absent".getBytes()), out),
                    "filter, index and the cached block decide an absent key");
            assertThrows(IllegalArgumentException.class, () -> db.get(cachedOnly, "k".getBytes()));
            assertThrows(IllegalArgumentException.class, () -> db.iterator(cachedOnly));
        }
        try (Db db = Db.open(Path.of("/no-cache"), Options.defaults().withFileSystem(new MemFileSystem())
                .withBlockCacheSize(0))) {
            MemorySegment key = MemorySegment.ofArray("k".getBytes());
            db.put("k".getBytes(), value);
            db.flush();
            assertEquals(300, db.get(ReadOptions.DEFAULT, key, MemorySegment.ofArray(new byte[300])));
            assertEquals(ReadOptions.INCOMPLETE, db.get(ReadOptions.DEFAULT.withCachedOnly(), key,
                    MemorySegment.ofArray(new byte[300])), "without a block cache, table data is never in memory");
        }
    }

    @Test
    void nullArgumentsAreRejectedClearly() throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            assertThrows(NullPointerException.class, () -> db.put(null, new byte[0]));
            assertThrows(NullPointerException.class, () -> db.put(new byte[0], null));
            assertThrows(NullPointerException.class, () -> db.get((byte[]) null));
            assertThrows(NullPointerException.class, () -> db.delete(null));
            assertThrows(NullPointerException.class, () -> db.write(null, WriteOptions.DEFAULT));
            assertThrows(NullPointerException.class, () -> new WriteBatch().put(null, new byte[0]));
            assertThrows(IllegalArgumentException.class, () -> Options.defaults().withWriteBufferSize(10));
            assertThrows(NullPointerException.class, () -> Options.defaults().withIngestCpuPriority(null));
        }
    }

    @Test
    void useAfterCloseSaysTheDatabaseIsClosed() throws IOException {
        Db db = Db.open(dir, Options.defaults());
        db.put("a".getBytes(), "1".getBytes());
        DbIterator it = db.iterator();
        it.seekToFirst();
        Snapshot snapshot = db.snapshot();
        db.close();
        db.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> db.get("a".getBytes()));
        assertTrue(e.getMessage().contains("closed"));
        assertThrows(IllegalStateException.class, () -> db.put("a".getBytes(), "1".getBytes()));
        assertThrows(IllegalStateException.class, db::snapshot);
        assertThrows(IllegalStateException.class, it::valid);
        assertThrows(IllegalStateException.class, () -> db.get(ReadOptions.at(snapshot), "a".getBytes()));
        it.close();
        snapshot.close();
    }

    @Test
    void secondOpenOfALockedDirectoryFailsClearly() throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            IOException e = assertThrows(IOException.class, () -> Db.open(dir, Options.defaults()));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
        // Released on close.
        Db.open(dir, Options.defaults()).close();
    }

    @Test
    void deleteAndOverwriteAndEmptyKeysAndValues() throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            db.put(new byte[0], new byte[0]);
            assertArrayEquals(new byte[0], db.get(new byte[0]));
            db.put("k".getBytes(), "1".getBytes());
            db.put("k".getBytes(), "2".getBytes());
            assertArrayEquals("2".getBytes(), db.get("k".getBytes()));
            db.delete("k".getBytes());
            assertNull(db.get("k".getBytes()));
            db.write(new WriteBatch(), WriteOptions.SYNC);
        }
    }

    @Test
    void closedSnapshotCannotBeRead() throws IOException {
        try (Db db = Db.open(Path.of("/s"), Options.defaults().withFileSystem(new MemFileSystem()))) {
            Snapshot s = db.snapshot();
            s.close();
            assertThrows(IllegalStateException.class, () -> db.get(ReadOptions.at(s), new byte[] {1}));
        }
    }

    @Test
    void zeroCopyOverloadsReadAndWriteOffHeapMemory() throws IOException {
        try (Db db = Db.open(dir, Options.defaults()); Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocateFrom(ValueLayout.JAVA_BYTE, new byte[] {1, 2, 3});
            MemorySegment value = arena.allocateFrom(ValueLayout.JAVA_BYTE, "hello".getBytes());
            db.put(WriteOptions.DEFAULT, key, value);
            MemorySegment destination = arena.allocate(3);
            assertEquals(5, db.get(ReadOptions.DEFAULT, key, destination));
            assertArrayEquals("hel".getBytes(), destination.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(-1, db.get(ReadOptions.DEFAULT, arena.allocate(1), destination));
            try (DbIterator it = db.iterator()) {
                it.seekToFirst();
                assertEquals(5, it.valueSegment().byteSize());
            }
        }
    }

    @Test
    void boundsAreLowerInclusiveUpperExclusive() throws IOException {
        try (Db db = Db.open(dir, Options.defaults())) {
            for (char c = 'a'; c <= 'e'; c++) {
                db.put(new byte[] {(byte) c}, new byte[] {(byte) c});
            }
            ReadOptions read = ReadOptions.DEFAULT.withLowerBound("b".getBytes()).withUpperBound("d".getBytes());
            try (DbIterator it = db.iterator(read)) {
                it.seekToFirst();
                assertArrayEquals("b".getBytes(), it.key());
                it.next();
                assertArrayEquals("c".getBytes(), it.key());
                it.next();
                assertFalse(it.valid());
                it.seekToLast();
                assertArrayEquals("c".getBytes(), it.key());
                it.seek("a".getBytes());
                assertArrayEquals("b".getBytes(), it.key());
                it.seekForPrev("z".getBytes());
                assertArrayEquals("c".getBytes(), it.key());
            }
        }
    }
}
