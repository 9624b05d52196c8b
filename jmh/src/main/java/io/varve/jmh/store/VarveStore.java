package io.varve.jmh.store;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Transaction;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.metrics.EngineStatistics;
import io.varve.core.txn.TransactionConflictException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/** Varve through its public API; reads use the zero-copy calls that copy straight into the caller's buffer. */
final class VarveStore implements KvStore {

    /**
     * Each thread's segments over its last key and value arrays. A zero-copy caller keeps its segments (that is
     * the point of the API), and the benchmark's workers reuse their arrays, so wrapping them anew on every get
     * would measure the adapter's allocation, not the engine's.
     */
    private static final ThreadLocal<Segments> SEGMENTS = ThreadLocal.withInitial(Segments::new);

    private final Db db;

    VarveStore(Path dir, StoreSettings settings) {
        try {
            this.db = Db.open(dir, settings.varveOptions());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return "varve";
    }

    @Override
    public void put(byte[] key, byte[] value, boolean sync) {
        db.put(sync ? WriteOptions.SYNC : WriteOptions.DEFAULT, key, value);
    }

    @Override
    public List<byte[]> multiGet(List<byte[]> keys) {
        return db.multiGet(ReadOptions.DEFAULT, keys);
    }

    @Override
    public void mergeAdd(byte[] key, byte[] delta) {
        db.merge(key, delta);
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) {
        Segments segments = SEGMENTS.get();
        return (int) db.get(ReadOptions.DEFAULT, segments.of(key, 0), segments.of(valueBuffer, 1));
    }

    private static final class Segments {
        private final byte[][] arrays = new byte[2][];
        private final MemorySegment[] segments = new MemorySegment[2];

        MemorySegment of(byte[] array, int slot) {
            if (arrays[slot] != array) {
                arrays[slot] = array;
                segments[slot] = MemorySegment.ofArray(array);
            }
            return segments[slot];
        }
    }

    @Override
    public void deleteRange(byte[] begin, byte[] end) {
        db.deleteRange(begin, end);
    }

    @Override
    public void delete(byte[] key, boolean sync) {
        db.delete(sync ? WriteOptions.SYNC : WriteOptions.DEFAULT, key);
    }

    @Override
    public KvBatch newBatch() {
        return new Batch();
    }

    @Override
    public void write(KvBatch batch, boolean sync) {
        db.write(((Batch) batch).batch, sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
    }

    @Override
    public KvCursor cursor() {
        return new Cursor(db.iterator(ReadOptions.DEFAULT));
    }

    @Override
    public void flush() {
        db.flush();
    }

    @Override
    public void compact() {
        db.compactRange(null, null);
    }

    @Override
    public void checkpoint(Path target) {
        try {
            // Flushing first, as RocksDB's createCheckpoint does (log_size_for_flush = 0).
            db.checkpoint(target, true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public KvTransaction beginOptimisticTransaction() {
        return new OptimisticTransaction(db.beginTransaction());
    }

    @Override
    public long fsyncs() {
        return db.statistics().walSyncs();
    }

    @Override
    public WriteStats writeStats() {
        EngineStatistics s = db.statistics();
        // The log's batches without record framing, since that is all RocksDB's WAL_FILE_BYTES counts.
        return new WriteStats(s.walBatchBytes(), s.flushBytesWritten(), s.compactionBytesWritten(),
                s.writeStallNanos(), s.level0Tables());
    }

    @Override
    public void close() {
        db.close(); // also closes iterators still open
    }

    private record OptimisticTransaction(Transaction txn) implements KvTransaction {
        @Override
        public byte[] getForUpdate(byte[] key) {
            return txn.getForUpdate(key);
        }

        @Override
        public void put(byte[] key, byte[] value) {
            txn.put(key, value);
        }

        @Override
        public boolean commit() {
            try {
                txn.commit();
                return true;
            } catch (TransactionConflictException conflict) {
                return false;
            }
        }

        @Override
        public void close() {
            txn.close();
        }
    }

    private static final class Batch implements KvBatch {
        final WriteBatch batch = new WriteBatch();

        @Override
        public void put(byte[] key, byte[] value) {
            batch.put(key, value);
        }

        @Override
        public void delete(byte[] key) {
            batch.delete(key);
        }

        @Override
        public int count() {
            return batch.count();
        }

        @Override
        public void clear() {
            batch.clear();
        }

        @Override
        public void close() {
        }
    }

    private static final class Cursor implements KvCursor {
        private final DbIterator it;

        Cursor(DbIterator it) {
            this.it = it;
        }

        @Override
        public void seekToFirst() {
            it.seekToFirst();
        }

        @Override
        public void seek(byte[] key) {
            it.seek(key);
        }

        @Override
        public boolean valid() {
            return it.valid();
        }

        @Override
        public void next() {
            it.next();
        }

        @Override
        public int key(byte[] dest) {
            return it.key(dest);
        }

        @Override
        public int value(byte[] dest) {
            return it.value(dest);
        }

        @Override
        public void close() {
            it.close();
        }
    }
}
