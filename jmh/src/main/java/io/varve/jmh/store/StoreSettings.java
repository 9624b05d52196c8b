package io.varve.jmh.store;

import io.varve.core.merge.MergeOperators;
import org.iq80.leveldb.CompressionType;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.UInt64AddOperator;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one place where each engine's configuration is derived from the same numbers, so that fairness can be
 * audited in a single file (docs/benchmarks.md lists the same table).
 *
 * <p>Defaults follow db_bench and can be changed for a whole run with system properties on the {@code java}
 * command (JMH forks inherit them): {@code -Dvarve.bench.memtableMiB=64}, {@code -Dvarve.bench.cacheMiB=64}.
 * The quick profile of bin/bench uses a small memtable so that even its small data set reaches tables and
 * compaction.
 *
 * @param memtableBytes   write buffer per memtable, the same for all three engines
 * @param blockSize       uncompressed data-block size of tables
 * @param blockCacheBytes block cache capacity
 * @param bloomBitsPerKey bloom filter bits per key (LevelDB-java 0.12 has no filter policy at all)
 * @param compression     block compression: LZ4 on Varve and RocksDB, Snappy on LevelDB-java (its only codec)
 * @param unorderedWrite  RocksDB's unordered_write and Varve's equivalent; LevelDB-java has no such mode
 * @param rocksStatistics turn on RocksDB's Statistics, which count log fsyncs, bytes written by the log,
 *                        flushes and compactions, and stall time; it costs RocksDB a little on every write,
 *                        so only the benchmarks that report these turn it on (Varve always counts)
 * @param optimisticTransactions open RocksDB as an {@code OptimisticTransactionDB} (the only way it offers
 *                        optimistic transactions; its plain reads and writes are unchanged); Varve needs no
 *                        setting, LevelDB-java has no transactions
 */
public record StoreSettings(long memtableBytes, int blockSize, long blockCacheBytes, int bloomBitsPerKey,
                            boolean compression, boolean unorderedWrite, boolean rocksStatistics,
                            boolean optimisticTransactions) {

    private static final long MIB = 1L << 20;

    /** The settings of every benchmark unless it overrides one: see the class comment for the properties. */
    public static StoreSettings defaults() {
        return new StoreSettings(Long.getLong("varve.bench.memtableMiB", 64) * MIB, 4096,
                Long.getLong("varve.bench.cacheMiB", 64) * MIB, 10, true, false, false, false);
    }

    /**
     * Prints {@link #defaults()} as a markdown list, for the report's settings section (bin/bench writes it
     * beside the results, run with the same system properties as the forks).
     */
    public static void main(String[] args) {
        System.out.print(defaults().describe());
    }

    /** The settings and what each engine makes of them, as a markdown list. */
    public String describe() {
        return String.format(Locale.ROOT, """
                - memtable (write buffer): %d MiB on every engine
                - table block size: %d bytes (uncompressed) on every engine
                - block cache: %d MiB LRU/CLOCK unless the benchmark sizes it to its data (readrandom hot: twice \
                the raw data + 64 MiB; readrandom small and manycallers: a fraction of it, see their class comments)
                - bloom filter: %d bits per key on Varve and RocksDB (full filter); LevelDB-java has none
                - compression: %s on every level for Varve and RocksDB; %s on LevelDB-java (its only codec)
                - write-ahead log: on for every engine; sync only where a benchmark asks (syncwrite), then per write
                - background work: Varve 1 flush + 1 compaction thread, RocksDB max_background_jobs=2, \
                LevelDB-java its single thread
                - unordered writes: %s; RocksDB statistics: only for benchmarks that report write counters
                - merge operator: 64-bit little-endian add on Varve and RocksDB (its built-in uint64add)
                """, memtableBytes / MIB, blockSize, blockCacheBytes / MIB, bloomBitsPerKey,
                compression ? "LZ4" : "none", compression ? "Snappy" : "none",
                unorderedWrite ? "on" : "off unless the benchmark compares modes");
    }

    public StoreSettings withBlockCacheBytes(long bytes) {
        return new StoreSettings(memtableBytes, blockSize, bytes, bloomBitsPerKey, compression, unorderedWrite,
                rocksStatistics, optimisticTransactions);
    }

    public StoreSettings withUnorderedWrite(boolean enabled) {
        return new StoreSettings(memtableBytes, blockSize, blockCacheBytes, bloomBitsPerKey, compression, enabled,
                rocksStatistics, optimisticTransactions);
    }

    public StoreSettings withRocksStatistics(boolean enabled) {
        return new StoreSettings(memtableBytes, blockSize, blockCacheBytes, bloomBitsPerKey, compression,
                unorderedWrite, enabled, optimisticTransactions);
    }

    public StoreSettings withOptimisticTransactions(boolean enabled) {
        return new StoreSettings(memtableBytes, blockSize, blockCacheBytes, bloomBitsPerKey, compression,
                unorderedWrite, rocksStatistics, enabled);
    }

    // ---- Varve

    io.varve.core.Options varveOptions() {
        // One flush thread plus one compaction thread: the same two background jobs RocksDB gets below.
        return io.varve.core.Options.defaults()
                .withWriteBufferSize(memtableBytes)
                .withUnorderedWrite(unorderedWrite)
                .withTableOptions(io.varve.core.sst.TableOptions.defaults()
                        .withBlockSize(blockSize)
                        .withBloomBitsPerKey(bloomBitsPerKey)
                        .withCompression(compression))
                .withBlockCacheSize(blockCacheBytes)
                .withMaxBackgroundCompactions(1)
                // Only MergeCounterBenchmark merges; an operator that is never used costs nothing.
                .withMergeOperator(MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN));
    }

    // ---- RocksDB

    /** RocksDB options and the native objects they reference; close the holder after the database. */
    RocksConfig rocksConfig() {
        List<AutoCloseable> natives = new ArrayList<>();
        org.rocksdb.Options options = new org.rocksdb.Options();
        natives.add(options);
        LRUCache cache = new LRUCache(blockCacheBytes);
        natives.add(cache);
        BloomFilter bloom = new BloomFilter(bloomBitsPerKey, false); // full (not block-based) filter, as db_bench
        natives.add(bloom);
        UInt64AddOperator counters = new UInt64AddOperator(); // only MergeCounterBenchmark merges
        natives.add(counters);
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockSize(blockSize)
                .setBlockCache(cache)
                .setFilterPolicy(bloom);
        options.setCreateIfMissing(true)
                .setWriteBufferSize(memtableBytes)
                .setCompressionType(compression ? org.rocksdb.CompressionType.LZ4_COMPRESSION
                        : org.rocksdb.CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(table)
                .setMergeOperator(counters)
                // Two background jobs (flush + compaction) on a 2-core machine; Varve and LevelDB-java each
                // have one background thread, so this favours RocksDB slightly, as its default would.
                .setMaxBackgroundJobs(2)
                .setUnorderedWrite(unorderedWrite)
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL);
        Statistics statistics = null;
        if (rocksStatistics) {
            statistics = new Statistics();
            // Tickers and the cheap timers only (STALL_MICROS is a ticker), as db_bench's --statistics does.
            statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
            natives.add(statistics);
            options.setStatistics(statistics);
        }
        return new RocksConfig(options, statistics, natives);
    }

    record RocksConfig(org.rocksdb.Options options, Statistics statistics, List<AutoCloseable> natives) {
        void close() {
            for (int i = natives.size() - 1; i >= 0; i--) {
                try {
                    natives.get(i).close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + natives.get(i), e);
                }
            }
        }
    }

    // ---- LevelDB-java

    org.iq80.leveldb.Options levelDbOptions() {
        // Snappy when org.iq80.snappy is on the class path (it is: see jmh/pom.xml), otherwise no compression:
        // LevelDB-java supports no other codec. It has no bloom filters (bloomBitsPerKey does not apply) and a
        // single background compaction thread. verifyChecksums stays at its default (true), as on RocksDB.
        boolean snappy = compression && org.iq80.leveldb.util.Snappy.available();
        return new org.iq80.leveldb.Options()
                .createIfMissing(true)
                .writeBufferSize(Math.toIntExact(memtableBytes))
                .blockSize(blockSize)
                .cacheSize(blockCacheBytes)
                .compressionType(snappy ? CompressionType.SNAPPY : CompressionType.NONE);
    }
}
