package io.varve.jmh.store;

import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;
import org.iq80.leveldb.impl.DbImpl;
import org.iq80.leveldb.impl.Iq80DBFactory;
import org.iq80.leveldb.impl.VersionSet;
import org.iq80.leveldb.util.Slice;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** LevelDB-java (iq80), pure Java. Its iterators and gets return fresh arrays, copied into the caller's. */
final class LevelDbStore implements KvStore {

    /** LevelDB's default number of levels: manual compaction walks levels 0 .. LEVELS - 2. */
    private static final int LEVELS = 7;

    private final Path dir;
    private final org.iq80.leveldb.Options options;
    private volatile DB db; // replaced only by flush(), between benchmark phases
    private final WriteOptions async = new WriteOptions().sync(false);
    private final WriteOptions sync = new WriteOptions().sync(true);
    private final Set<DBIterator> iterators = ConcurrentHashMap.newKeySet();

    LevelDbStore(Path dir, StoreSettings settings) {
        this.dir = dir;
        this.options = settings.levelDbOptions();
        this.db = open();
    }

    private DB open() {
        try {
            return Iq80DBFactory.factory.open(dir.toFile(), options);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return "leveldb";
    }

    @Override
    public void put(byte[] key, byte[] value, boolean synced) {
        db.put(key, value, synced ? sync : async);
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) {
        byte[] value = db.get(key);
        if (value == null) {
            return -1;
        }
        System.arraycopy(value, 0, valueBuffer, 0, Math.min(value.length, valueBuffer.length));
        return value.length;
    }

    @Override
    public void delete(byte[] key, boolean synced) {
        db.delete(key, synced ? sync : async);
    }

    @Override
    public KvBatch newBatch() {
        return new Batch();
    }

    @Override
    public void write(KvBatch batch, boolean synced) {
        db.write(((Batch) batch).batch(), synced ? sync : async);
    }

    @Override
    public KvCursor cursor() {
        DBIterator it = db.iterator();
        iterators.add(it);
        return new Cursor(it);
    }

    /**
     * LevelDB-java has no flush. Its test hook {@code DbImpl.compactMemTable()} runs in the caller's thread,
     * races the background compaction and corrupts the version set ("Compaction is obsolete: Overlapping
     * files"), so this closes and reopens instead: recovery writes the log's memtable to a level-0 table.
     * Called only between phases (no cursor is open).
     */
    @Override
    public void flush() {
        if (!iterators.isEmpty()) {
            throw new IllegalStateException("flush with open cursors");
        }
        try {
            db.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        db = open();
    }

    /**
     * LevelDB-java does not implement the public {@code compactRange(begin, end)}. This does what LevelDB's
     * CompactRange does with the pieces LevelDB-java has: find the deepest level holding data, then run the
     * per-level manual compaction ({@code DbImpl.compactRange(level, ...)}, executed by the background
     * thread, so serialised with its other work) for every level above it. The level count is read through
     * reflection because DbImpl keeps its VersionSet private; compacting all six levels blindly instead
     * would rewrite the whole data set once per level.
     */
    @Override
    public void compact() {
        flush();
        byte[] max = new byte[256]; // sorts after every benchmark key (16 bytes)
        Arrays.fill(max, (byte) 0xff);
        Slice begin = new Slice(new byte[0]);
        Slice end = new Slice(max);
        DbImpl impl = (DbImpl) db;
        VersionSet versions = versions(impl);
        int deepest = 1;
        for (int level = 1; level < LEVELS; level++) {
            if (versions.overlapInLevel(level, begin, end)) {
                deepest = level;
            }
        }
        for (int level = 0; level < deepest; level++) {
            impl.compactRange(level, begin, end);
        }
    }

    private static VersionSet versions(DbImpl impl) {
        try {
            Field field = DbImpl.class.getDeclaredField("versions");
            field.setAccessible(true);
            return (VersionSet) field.get(impl);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("LevelDB-java internals changed: no DbImpl.versions", e);
        }
    }

    @Override
    public long fsyncs() {
        return -1;
    }

    /**
     * LevelDB-java keeps no byte counters and no stall timer, and its {@code getProperty} answers null for
     * every name ("leveldb.stats" included), so it cannot tell.
     */
    @Override
    public WriteStats writeStats() {
        return null;
    }

    @Override
    public void close() {
        for (DBIterator it : iterators) {
            closeQuietly(it);
        }
        iterators.clear();
        try {
            db.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void closeQuietly(DBIterator it) {
        try {
            it.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** LevelDB-java batches cannot be cleared, so a cleared batch starts a new one. */
    private final class Batch implements KvBatch {
        private WriteBatch batch = db.createWriteBatch();
        private int count;

        WriteBatch batch() {
            return batch;
        }

        @Override
        public void put(byte[] key, byte[] value) {
            batch.put(key, value);
            count++;
        }

        @Override
        public void delete(byte[] key) {
            batch.delete(key);
            count++;
        }

        @Override
        public int count() {
            return count;
        }

        @Override
        public void clear() {
            close();
            batch = db.createWriteBatch();
            count = 0;
        }

        @Override
        public void close() {
            try {
                batch.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** LevelDB-java's iterator is a peek-ahead one; this caches the entry it is on. */
    private final class Cursor implements KvCursor {
        private final DBIterator it;
        private Map.Entry<byte[], byte[]> current;

        Cursor(DBIterator it) {
            this.it = it;
        }

        @Override
        public void seekToFirst() {
            it.seekToFirst();
            advance();
        }

        @Override
        public void seek(byte[] key) {
            it.seek(key);
            advance();
        }

        private void advance() {
            current = it.hasNext() ? it.next() : null;
        }

        @Override
        public boolean valid() {
            return current != null;
        }

        @Override
        public void next() {
            advance();
        }

        @Override
        public int key(byte[] dest) {
            return copy(current.getKey(), dest);
        }

        @Override
        public int value(byte[] dest) {
            return copy(current.getValue(), dest);
        }

        private static int copy(byte[] src, byte[] dest) {
            System.arraycopy(src, 0, dest, 0, Math.min(src.length, dest.length));
            return src.length;
        }

        @Override
        public void close() {
            iterators.remove(it);
            closeQuietly(it);
        }
    }
}
