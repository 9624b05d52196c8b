package io.varve.jmh.store;

import org.rocksdb.Checkpoint;
import org.rocksdb.FlushOptions;
import org.rocksdb.OptimisticTransactionDB;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksObject;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.Transaction;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * RocksDB through rocksdbjni. Every native object it creates is closed in {@link #close()}: iterators and
 * batches still open first (a RocksDB iterator must not outlive its database), then the database, then the
 * options, cache and filter.
 */
final class RocksDbStore implements KvStore {

    static {
        RocksDB.loadLibrary();
    }

    private final StoreSettings.RocksConfig config;
    private final RocksDB db;
    private final WriteOptions async = new WriteOptions();
    private final WriteOptions sync = new WriteOptions().setSync(true);
    private final ReadOptions read = new ReadOptions();
    private final Set<RocksObject> children = ConcurrentHashMap.newKeySet();

    RocksDbStore(Path dir, StoreSettings settings) {
        this.config = settings.rocksConfig();
        try {
            this.db = settings.optimisticTransactions()
                    ? OptimisticTransactionDB.open(config.options(), dir.toString())
                    : RocksDB.open(config.options(), dir.toString());
        } catch (RocksDBException e) {
            closeOptions();
            throw new IllegalStateException("opening RocksDB in " + dir, e);
        }
    }

    @Override
    public String name() {
        return "rocksdb";
    }

    @Override
    public void put(byte[] key, byte[] value, boolean synced) {
        try {
            db.put(synced ? sync : async, key, value);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void mergeAdd(byte[] key, byte[] delta) {
        try {
            db.merge(async, key, delta);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public List<byte[]> multiGet(List<byte[]> keys) {
        try {
            return db.multiGetAsList(read, keys);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) {
        try {
            return db.get(read, key, valueBuffer); // RocksDB.NOT_FOUND is -1, as the interface wants
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void deleteRange(byte[] begin, byte[] end) {
        try {
            db.deleteRange(async, begin, end);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void delete(byte[] key, boolean synced) {
        try {
            db.delete(synced ? sync : async, key);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public KvBatch newBatch() {
        Batch batch = new Batch(new WriteBatch());
        children.add(batch.batch);
        return batch;
    }

    @Override
    public void write(KvBatch batch, boolean synced) {
        try {
            db.write(synced ? sync : async, ((Batch) batch).batch);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public KvCursor cursor() {
        RocksIterator it = db.newIterator(read);
        children.add(it);
        return new Cursor(it);
    }

    @Override
    public void flush() {
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            db.flush(options);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void compact() {
        try {
            db.compactRange();
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long fsyncs() {
        return config.statistics() == null ? -1 : config.statistics().getTickerCount(TickerType.WAL_FILE_SYNCED);
    }

    @Override
    public WriteStats writeStats() {
        org.rocksdb.Statistics s = config.statistics();
        if (s == null) {
            throw new IllegalStateException("open RocksDB with StoreSettings.withRocksStatistics(true) to count writes");
        }
        try {
            return new WriteStats(s.getTickerCount(TickerType.WAL_FILE_BYTES), s.getTickerCount(TickerType.FLUSH_WRITE_BYTES),
                    s.getTickerCount(TickerType.COMPACT_WRITE_BYTES), s.getTickerCount(TickerType.STALL_MICROS) * 1000,
                    // A string property: getLongProperty answers NotFound for it.
                    Long.parseLong(db.getProperty("rocksdb.num-files-at-level0").trim()));
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void checkpoint(Path target) {
        // createCheckpoint flushes the memtables first (log_size_for_flush = 0), as Varve's flushFirst does.
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            checkpoint.createCheckpoint(target.toString());
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public KvTransaction beginOptimisticTransaction() {
        if (!(db instanceof OptimisticTransactionDB transactional)) {
            throw new IllegalStateException("open the store with StoreSettings.withOptimisticTransactions(true)");
        }
        return new OptimisticTransaction(transactional.beginTransaction(async));
    }

    @Override
    public void close() {
        children.forEach(RocksObject::close); // close() is idempotent on RocksObjects
        children.clear();
        db.close();
        async.close();
        sync.close();
        read.close();
        closeOptions();
    }

    private void closeOptions() {
        config.close();
    }

    private final class OptimisticTransaction implements KvTransaction {
        private final Transaction txn;

        OptimisticTransaction(Transaction txn) {
            this.txn = txn;
            children.add(txn);
        }

        @Override
        public byte[] getForUpdate(byte[] key) {
            try {
                return txn.getForUpdate(read, key, true);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void put(byte[] key, byte[] value) {
            try {
                txn.put(key, value);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public boolean commit() {
            try {
                txn.commit();
                return true;
            } catch (RocksDBException e) {
                // Busy: a key read for update was written after this transaction's snapshot; TryAgain: the
                // memtable history no longer reaches back far enough to tell, which RocksDB also asks to retry.
                Status status = e.getStatus();
                if (status != null && (status.getCode() == Status.Code.Busy
                        || status.getCode() == Status.Code.TryAgain)) {
                    return false;
                }
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            children.remove(txn);
            txn.close();
        }
    }

    private final class Batch implements KvBatch {
        final WriteBatch batch;

        Batch(WriteBatch batch) {
            this.batch = batch;
        }

        @Override
        public void put(byte[] key, byte[] value) {
            try {
                batch.put(key, value);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void delete(byte[] key) {
            try {
                batch.delete(key);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
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
            children.remove(batch);
            batch.close();
        }
    }

    private final class Cursor implements KvCursor {
        private final RocksIterator it;

        Cursor(RocksIterator it) {
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
            return it.isValid();
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
            children.remove(it);
            it.close();
        }
    }
}
