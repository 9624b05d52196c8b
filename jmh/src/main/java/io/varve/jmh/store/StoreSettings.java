package io.varve.jmh.store;

import io.varve.core.merge.MergeOperators;
import org.iq80.leveldb.CompressionType;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.DataBlockIndexType;
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
 * <p>The raft-log benchmarks take their settings from here too ({@link #raftLogVarve}, {@link #raftLogVarveSmallFiles}, {@link #raftLogRocks}),
 * and both raft stores reuse one write batch per writing thread.
 *
 * <p>Defaults follow db_bench and can be changed for a whole run with system properties on the {@code java}
 * command (JMH forks inherit them): {@code -Dvarve.bench.memtableMiB=64}, {@code -Dvarve.bench.cacheMiB=64},
 * {@code -Dvarve.bench.dataBlockHashIndex=true} (a hash index in every data block, on Varve and RocksDB alike)
 * and, for Varve alone, {@code -Dvarve.bench.maxSuccessiveMerges=0} (its default, as RocksDB's), to measure
 * merges folded on write.
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
    /** RocksDB's {@code num_levels} default, the length its per-level compression list takes. */
    private static final int ROCKS_LEVELS = 7;

    /**
     * Data blocks end in a hash index of their keys on Varve ({@code TableOptions.withDataBlockHashIndex}) and
     * RocksDB ({@code kDataBlockBinaryAndHash}); off, as both engines default, unless the property asks.
     */
    static final boolean DATA_BLOCK_HASH_INDEX = Boolean.getBoolean("varve.bench.dataBlockHashIndex");

    /**
     * Memtables a store may hold in memory, the mutable one included: LevelDB-java's fixed one mutable plus one
     * immutable, which RocksDB's {@code max_write_buffer_number} (its default, 2) and Varve's immutable-memtable
     * stall trigger are set to. More would let a store defer flushes past the end of a timed shot.
     */
    public static final int MEMTABLES_IN_MEMORY = 2;
    /** Level-0 table counts that slow and stop writes: RocksDB's defaults, set alike on Varve. */
    public static final int LEVEL0_SLOWDOWN = 20;
    public static final int LEVEL0_STOP = 36;
    /**
     * Whether level-0 tables are compressed like the other levels ({@code -Dvarve.bench.level0Compression}):
     * off is RocksDB's common {@code compression_per_level} setting with no compression on level 0, given to
     * Varve and RocksDB alike; LevelDB-java has one codec setting for every level and keeps it.
     */
    static final boolean LEVEL0_COMPRESSION =
            Boolean.parseBoolean(System.getProperty("varve.bench.level0Compression", "true"));

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
                - compression: %s on every level for Varve and RocksDB%s; %s on LevelDB-java (its only codec, on every level)
                - memtables in memory: %d (one mutable, one immutable) on every engine: RocksDB \
                max_write_buffer_number, Varve's immutable-memtable stall trigger, LevelDB-java's fixed pair; \
                level-0 slowdown/stop at %d/%d tables on Varve and RocksDB
                - block checksums: verified on every read of a block from its file (a block-cache miss) on Varve \
                (withVerifyEveryBlockLoad) and RocksDB (verify_checksums, its default); LevelDB-java as its \
                defaults have it
                - fills and overwrites: each shot ends with a flush that waits for the memtables to be written, \
                so the flush backlog is paid inside the timed window on every engine
                - write-ahead log: on for every engine; sync only where a benchmark asks (syncwrite), then per write
                - background work: Varve 1 flush + 1 compaction thread, RocksDB max_background_jobs=2, \
                LevelDB-java its single thread
                - unordered writes: %s; RocksDB statistics: only for benchmarks that report write counters
                - merge operator: 64-bit little-endian add on Varve and RocksDB (its built-in uint64add)
                - data block hash index: %s on Varve and RocksDB (kDataBlockBinaryAndHash)
                """, memtableBytes / MIB, blockSize, blockCacheBytes / MIB, bloomBitsPerKey,
                compression ? "LZ4" : "none",
                compression && !LEVEL0_COMPRESSION ? " but level 0 (compression_per_level), which is uncompressed" : "",
                compression ? "Snappy" : "none",
                MEMTABLES_IN_MEMORY, LEVEL0_SLOWDOWN, LEVEL0_STOP,
                unorderedWrite ? "on" : "off unless the benchmark compares modes",
                DATA_BLOCK_HASH_INDEX ? "on" : "off");
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
                        .withCompressionPerLevel(compression && LEVEL0_COMPRESSION, compression)
                        .withDataBlockHashIndex(DATA_BLOCK_HASH_INDEX))
                .withBlockCacheSize(blockCacheBytes)
                .withMaxBackgroundCompactions(1)
                .withWriteStallTriggers(MEMTABLES_IN_MEMORY - 1, LEVEL0_SLOWDOWN, LEVEL0_STOP)
                .withVerifyEveryBlockLoad(true)
                // Only MergeCounterBenchmark merges; an operator that is never used costs nothing.
                .withMergeOperator(MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN))
                .withMaxSuccessiveMerges(Integer.getInteger("varve.bench.maxSuccessiveMerges", 0));
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
                .setFilterPolicy(bloom)
                .setDataBlockIndexType(DATA_BLOCK_HASH_INDEX ? DataBlockIndexType.kDataBlockBinaryAndHash
                        : DataBlockIndexType.kDataBlockBinarySearch);
        options.setCreateIfMissing(true)
                .setWriteBufferSize(memtableBytes)
                .setMaxWriteBufferNumber(MEMTABLES_IN_MEMORY)
                .setLevel0SlowdownWritesTrigger(LEVEL0_SLOWDOWN)
                .setLevel0StopWritesTrigger(LEVEL0_STOP)
                .setCompressionType(compression ? org.rocksdb.CompressionType.LZ4_COMPRESSION
                        : org.rocksdb.CompressionType.NO_COMPRESSION)
                .setCompressionPerLevel(rocksCompressionPerLevel())
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

    /** Per level, as Varve's: level 0 per {@link #LEVEL0_COMPRESSION}, every other level per the setting. */
    private List<org.rocksdb.CompressionType> rocksCompressionPerLevel() {
        org.rocksdb.CompressionType codec = compression ? org.rocksdb.CompressionType.LZ4_COMPRESSION
                : org.rocksdb.CompressionType.NO_COMPRESSION;
        List<org.rocksdb.CompressionType> levels = new ArrayList<>();
        levels.add(LEVEL0_COMPRESSION ? codec : org.rocksdb.CompressionType.NO_COMPRESSION);
        for (int level = 1; level < ROCKS_LEVELS; level++) {
            levels.add(codec);
        }
        return levels;
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

    // ---- Raft logs (RaftLog*Benchmark): Varve's engine-raftlog against RocksDB used as a raft log

    /**
     * Varve's raft log for the append and recovery benchmarks: 64 MiB files, purging only past 1 GiB of files.
     * Compression off, as on RocksDB below: the benchmarks' entries are random bytes, which neither codec can
     * shrink, so trying would only cost CPU on one side or the other.
     */
    public static io.varve.raftlog.RaftLogOptions raftLogVarve() {
        return io.varve.raftlog.RaftLogOptions.defaults()
                .withTargetFileSize(64L << 20)
                .withPurgeThreshold(1L << 30)
                .withCompressionThreshold(Integer.MAX_VALUE);
    }

    /**
     * Varve's raft log for the recycling benchmarks: 4 MiB files so purges retire files often, the default
     * purge threshold, compression off as above; the benchmark chooses how many files to recycle.
     */
    public static io.varve.raftlog.RaftLogOptions raftLogVarveSmallFiles() {
        return io.varve.raftlog.RaftLogOptions.defaults()
                .withTargetFileSize(4L << 20)
                .withCompressionThreshold(Integer.MAX_VALUE);
    }

    /**
     * RocksDB as a raft log, with the native objects to close after it. Compression off (see
     * {@link #raftLogVarve}); statistics at the cheapest level the Java API offers (EXCEPT_DETAILED_TIMERS, as
     * for the key-value stores), because the benchmarks report the bytes RocksDB wrote (WAL, flushes,
     * compactions) and only its statistics know them;
     * Varve's raft log always counts. Memtables in memory and level-0 triggers as for the key-value stores.
     */
    public static RaftLogRocks raftLogRocks() {
        Statistics statistics = new Statistics();
        statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        org.rocksdb.Options options = new org.rocksdb.Options()
                .setCreateIfMissing(true)
                .setCompressionType(org.rocksdb.CompressionType.NO_COMPRESSION)
                .setMaxWriteBufferNumber(MEMTABLES_IN_MEMORY)
                .setLevel0SlowdownWritesTrigger(LEVEL0_SLOWDOWN)
                .setLevel0StopWritesTrigger(LEVEL0_STOP)
                .setMaxBackgroundJobs(2)
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setStatistics(statistics);
        return new RaftLogRocks(options, statistics);
    }

    /** RocksDB's raft-log options and the statistics they report to; close after the database. */
    public record RaftLogRocks(org.rocksdb.Options options, Statistics statistics) implements AutoCloseable {
        @Override
        public void close() {
            options.close();
            statistics.close();
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
