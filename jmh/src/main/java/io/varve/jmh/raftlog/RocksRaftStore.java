package io.varve.jmh.raftlog;

import io.varve.jmh.store.StoreSettings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksDB used as a Raft log the way TiKV used its raft db before raft-engine: key = 8-byte group id then
 * 8-byte index, big-endian; the hard state under the 8-byte group id followed by "hs"; WAL on; the same
 * sync flag per write; log GC by {@code deleteRange}.
 */
final class RocksRaftStore implements RaftStore {
    static {
        RocksDB.loadLibrary();
    }

    private final StoreSettings.RaftLogRocks settings;
    private final Statistics statistics;
    /** One batch per writing thread, cleared and refilled for each append, as VarveRaftStore reuses its own. */
    private final ThreadLocal<WriteBatch> batches;
    private final Queue<WriteBatch> allBatches = new ConcurrentLinkedQueue<>();
    private final WriteOptions syncWrites;
    private final WriteOptions plainWrites;
    final RocksDB db;

    RocksRaftStore(Path dir) throws IOException {
        settings = StoreSettings.raftLogRocks();
        statistics = settings.statistics();
        batches = ThreadLocal.withInitial(() -> {
            WriteBatch batch = new WriteBatch();
            allBatches.add(batch);
            return batch;
        });
        syncWrites = new WriteOptions().setSync(true);
        plainWrites = new WriteOptions().setSync(false);
        try {
            db = RocksDB.open(settings.options(), dir.toString());
        } catch (RocksDBException e) {
            throw new IOException(e);
        }
    }

    static byte[] entryKey(long group, long index) {
        return ByteBuffer.allocate(16).putLong(group).putLong(index).array();
    }

    static byte[] stateKey(long group) {
        return ByteBuffer.allocate(10).putLong(group).put((byte) 'h').put((byte) 's').array();
    }

    @Override
    public void append(long[] groups, long[] indexes, byte[][] entries, byte[] hardState, boolean sync)
            throws IOException {
        WriteBatch batch = batches.get();
        try {
            batch.clear();
            for (int i = 0; i < groups.length; i++) {
                batch.put(entryKey(groups[i], indexes[i]), entries[i]);
                batch.put(stateKey(groups[i]), hardState);
            }
            db.write(sync ? syncWrites : plainWrites, batch);
        } catch (RocksDBException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void compact(long group, long index) throws IOException {
        try {
            db.deleteRange(plainWrites, entryKey(group, 0), entryKey(group, index));
        } catch (RocksDBException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void maintain(long[] lastIndexes, int keep) {
        // RocksDB reclaims space by itself (flushes and compactions, counted below).
    }

    @Override
    public long deviceBytesWritten() {
        return statistics.getTickerCount(TickerType.WAL_FILE_BYTES)
                + statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES)
                + statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES);
    }

    @Override
    public String accounting() {
        return "RocksDB statistics: WAL_FILE_BYTES + FLUSH_WRITE_BYTES + COMPACT_WRITE_BYTES";
    }

    @Override
    public void close() {
        db.close();
        allBatches.forEach(WriteBatch::close);
        syncWrites.close();
        plainWrites.close();
        settings.close();
    }
}
