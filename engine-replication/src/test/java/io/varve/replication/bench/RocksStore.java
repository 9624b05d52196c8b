package io.varve.replication.bench;

import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.impl.RocksDBLogStorage;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * jraft's RocksDBLogStorage, one RocksDB per group as jraft lays them out, with jraft's default options and
 * its statistics switched on ({@link RaftOptions#setOpenStatistics}). jraft keeps each database's statistics
 * in a private field with no getter, so they are read by reflection; the tickers are summed over all groups.
 */
final class RocksStore implements LogStorageBenchmark.Store {
    static {
        RocksDB.loadLibrary();
    }

    private static final Field STATISTICS;

    static {
        try {
            STATISTICS = RocksDBLogStorage.class.getDeclaredField("statistics");
            STATISTICS.setAccessible(true);
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Path dir;
    private final RaftOptions raftOptions = new RaftOptions();
    private final List<RocksDBLogStorage> storages = new ArrayList<>();

    RocksStore(Path dir) {
        this.dir = dir;
        raftOptions.setOpenStatistics(true);
    }

    @Override
    public LogStorage create(int group) {
        RocksDBLogStorage storage = new RocksDBLogStorage(dir.resolve("group-" + group).toString(), raftOptions);
        storages.add(storage);
        return storage;
    }

    @Override
    public long fsyncs() {
        return ticker(TickerType.WAL_FILE_SYNCED);
    }

    /** WAL, flush and compaction bytes: everything RocksDB writes to its files. */
    @Override
    public long bytesWritten() {
        return ticker(TickerType.WAL_FILE_BYTES) + ticker(TickerType.FLUSH_WRITE_BYTES)
                + ticker(TickerType.COMPACT_WRITE_BYTES);
    }

    private long ticker(TickerType type) {
        long sum = 0;
        for (RocksDBLogStorage storage : storages) {
            try {
                Statistics statistics = (Statistics) STATISTICS.get(storage);
                if (statistics != null) {
                    sum += statistics.getTickerCount(type);
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return sum;
    }

    @Override
    public void close() {
        // Each storage closes its own database and statistics in shutdown().
    }
}
