package io.varve.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.varve.core.ingest.CpuPriority;
import io.varve.core.compaction.CompactionFilter;
import io.varve.core.merge.MergeOperator;
import io.varve.core.compaction.CompactionSettings;
import io.varve.base.fs.DiskFileSystem;
import io.varve.base.fs.FileSystem;
import io.varve.core.sst.TableOptions;

import java.util.Objects;
import java.util.HashMap;
import java.util.Map;

/**
 * How a database is opened. Immutable: start from {@link #defaults()} and use the {@code with} methods, each
 * returning a changed copy. Every value is validated where it is set, so a bad option fails at the call that
 * set it.
 */
public final class Options {

    private static final long MIN_WRITE_BUFFER = 64L << 10;
    private static final long MAX_WRITE_BUFFER = 1L << 30;
    /** The logger of every database not given one: the platform's, under the engine's package name. */
    private static final System.Logger DEFAULT_LOGGER = System.getLogger("io.varve.core");

    private long writeBufferSize = 64L << 20;
    private WalRecoveryMode walRecovery = WalRecoveryMode.POINT_IN_TIME;
    private boolean unorderedWrite;
    private boolean writeAheadLog = true;
    private FileSystem fileSystem = DiskFileSystem.INSTANCE;
    private TableOptions tableOptions = TableOptions.defaults();
    private long blockCacheSize = 32L << 20;
    private SharedBlockCache blockCache;
    private WriteBufferManager writeBufferManager;
    private boolean verifyEveryBlockLoad;
    private CompactionSettings compactionSettings = CompactionSettings.defaults();
    private int maxBackgroundCompactions = 1;
    private CompactionFilter compactionFilter;
    private MergeOperator mergeOperator;
    private int maxSuccessiveMerges;
    private long backgroundRateLimit;
    private int maxImmutableMemtables = 4;
    private int level0SlowdownWritesTrigger = 20;
    private int level0StopWritesTrigger = 36;
    private long softPendingCompactionBytes = 64L << 30;
    private long hardPendingCompactionBytes = 256L << 30;
    private long delayedWriteRate = 16L << 20;
    private Map<String, ColumnFamilyOptions> columnFamilies = Map.of();
    private CpuPriority ingestCpuPriority = CpuPriority.NORMAL;
    private System.Logger logger = DEFAULT_LOGGER;
    /** A MeterRegistry or null, typed Object so that loading this class never loads Micrometer. */
    private Object meterRegistry;

    private Options() {
    }

    private Options copy() {
        Options o = new Options();
        o.writeBufferSize = writeBufferSize;
        o.walRecovery = walRecovery;
        o.unorderedWrite = unorderedWrite;
        o.writeAheadLog = writeAheadLog;
        o.fileSystem = fileSystem;
        o.tableOptions = tableOptions;
        o.blockCacheSize = blockCacheSize;
        o.blockCache = blockCache;
        o.writeBufferManager = writeBufferManager;
        o.verifyEveryBlockLoad = verifyEveryBlockLoad;
        o.compactionSettings = compactionSettings;
        o.maxBackgroundCompactions = maxBackgroundCompactions;
        o.compactionFilter = compactionFilter;
        o.mergeOperator = mergeOperator;
        o.maxSuccessiveMerges = maxSuccessiveMerges;
        o.backgroundRateLimit = backgroundRateLimit;
        o.maxImmutableMemtables = maxImmutableMemtables;
        o.level0SlowdownWritesTrigger = level0SlowdownWritesTrigger;
        o.level0StopWritesTrigger = level0StopWritesTrigger;
        o.softPendingCompactionBytes = softPendingCompactionBytes;
        o.hardPendingCompactionBytes = hardPendingCompactionBytes;
        o.delayedWriteRate = delayedWriteRate;
        o.columnFamilies = columnFamilies;
        o.ingestCpuPriority = ingestCpuPriority;
        o.meterRegistry = meterRegistry;
        o.logger = logger;
        return o;
    }

    /**
     * 64 MiB memtables, point-in-time WAL recovery, ordered writes, the real file system, 4 KiB table
     * blocks with lz4 where it saves space, 10-bit bloom filters, a 32 MiB block cache.
     */
    public static Options defaults() {
        return new Options();
    }

    /** Bytes of writes a memtable takes before it becomes immutable and a new one starts (64 KiB .. 1 GiB). */
    public Options withWriteBufferSize(long bytes) {
        checkWriteBufferSize(bytes);
        Options o = copy();
        o.writeBufferSize = bytes;
        return o;
    }

    static void checkWriteBufferSize(long bytes) {
        if (bytes < MIN_WRITE_BUFFER || bytes > MAX_WRITE_BUFFER) {
            throw new IllegalArgumentException("writeBufferSize must be in [" + MIN_WRITE_BUFFER + ", "
                    + MAX_WRITE_BUFFER + "]: " + bytes);
        }
    }

    /**
     * The options of the existing column family {@code name} for this open (families are created with
     * {@link Db#createColumnFamily}; their options are not stored on disk). An existing family without an
     * entry here opens with {@link ColumnFamilyOptions#defaults()}. The default family always uses this
     * object's own settings.
     */
    public Options withColumnFamily(String name, ColumnFamilyOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(options, "options");
        Options o = copy();
        Map<String, ColumnFamilyOptions> all = new HashMap<>(columnFamilies);
        all.put(name, options);
        o.columnFamilies = Map.copyOf(all);
        return o;
    }

    /** The options registered for family {@code name} with {@link #withColumnFamily}, or the family defaults. */
    ColumnFamilyOptions columnFamilyOptions(String name) {
        return columnFamilies.getOrDefault(name, ColumnFamilyOptions.defaults());
    }

    public Options withWalRecovery(WalRecoveryMode mode) {
        Options o = copy();
        o.walRecovery = Objects.requireNonNull(mode, "walRecovery");
        return o;
    }

    /**
     * Publishes each batch to readers as soon as it is in the log, instead of in log order once every earlier
     * batch is in the memtable. Higher write throughput under many writers; a writer still reads its own
     * writes once {@code write} returns, but readers may see part of another writer's batch, and a snapshot
     * may see writes with sequence numbers at or below it appear later. See docs/architecture.md.
     */
    public Options withUnorderedWrite(boolean enabled) {
        Options o = copy();
        o.unorderedWrite = enabled;
        return o;
    }

    /**
     * Whether writes go to the write-ahead log (the default) or only to the memtables, as RocksDB's
     * {@code disableWAL} on every write. Without the log, what a crash keeps is the state of the last flush:
     * all column families flush together, cut at one sequence number, so that state is still a prefix of the
     * acknowledged writes, and a batch spanning families is in it whole or not at all. For data that lives
     * durably elsewhere and is restored from there (a Raft log, a Kafka changelog), which then only needs to
     * know where the flushed state ends: write that position in the same batches as the data. Synced writes
     * are refused ({@code IllegalArgumentException}); {@link Db#syncWal()}, checkpoints, ingestion and
     * {@link Db#close()} flush the memtables instead. See docs/durability.md.
     */
    public Options withWriteAheadLog(boolean enabled) {
        Options o = copy();
        o.writeAheadLog = enabled;
        return o;
    }

    /** The storage to use; tests pass the in-memory or fault-injecting file systems. */
    public Options withFileSystem(FileSystem fs) {
        Options o = copy();
        o.fileSystem = Objects.requireNonNull(fs, "fileSystem");
        return o;
    }

    /** Block size, restart interval, bloom bits per key and compression of the tables this database writes. */
    public Options withTableOptions(TableOptions options) {
        Options o = copy();
        o.tableOptions = Objects.requireNonNull(options, "tableOptions");
        return o;
    }

    /** Bytes of decompressed blocks to cache (0 disables the cache; uncompressed blocks are read in place). */
    public Options withBlockCacheSize(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("blockCacheSize must be >= 0: " + bytes);
        }
        Options o = copy();
        o.blockCacheSize = bytes;
        return o;
    }

    /**
     * A block cache shared with other databases, used instead of a cache of this database's own (whose
     * {@link #withBlockCacheSize size} is then ignored); null, the default, gives the database its own.
     */
    public Options withBlockCache(SharedBlockCache cache) {
        Options o = copy();
        o.blockCache = cache;
        return o;
    }

    /**
     * A memtable budget shared with other databases (null, the default, for none): this database's memtables
     * count against it, and it may flush them early or stall writes when the budget is full.
     */
    public Options withWriteBufferManager(WriteBufferManager manager) {
        Options o = copy();
        o.writeBufferManager = manager;
        return o;
    }

    /**
     * Whether a data block's checksum is verified every time it is read from its table file (a block-cache
     * miss), as RocksDB's {@code verify_checksums} read option does, instead of the first time each open
     * table reads it (the default: a table's bytes never change, so one check per block and reader suffices
     * against corruption at rest, and later loads skip the CRC). Benchmarks set it to compare like with like.
     */
    public Options withVerifyEveryBlockLoad(boolean enabled) {
        Options o = copy();
        o.verifyEveryBlockLoad = enabled;
        return o;
    }

    /** Level-0 trigger, level sizes and output table size of leveled compaction. */
    public Options withCompactionSettings(CompactionSettings settings) {
        Options o = copy();
        o.compactionSettings = Objects.requireNonNull(settings, "compactionSettings");
        return o;
    }

    /** Threads running compactions concurrently (1 .. 64). */
    public Options withMaxBackgroundCompactions(int threads) {
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("maxBackgroundCompactions must be in [1, 64]: " + threads);
        }
        Options o = copy();
        o.maxBackgroundCompactions = threads;
        return o;
    }

    /** Called for values during compaction to keep, remove or change them (null for none). */
    public Options withCompactionFilter(CompactionFilter filter) {
        Options o = copy();
        o.compactionFilter = filter;
        return o;
    }

    /** The merge operator of the default column family (null for none: merges into it are refused). */
    public Options withMergeOperator(MergeOperator operator) {
        Options o = copy();
        o.mergeOperator = operator;
        return o;
    }

    public MergeOperator mergeOperator() {
        return mergeOperator;
    }

    /** {@link ColumnFamilyOptions#withMaxSuccessiveMerges} for the default column family. */
    public Options withMaxSuccessiveMerges(int count) {
        checkMaxSuccessiveMerges(count);
        Options o = copy();
        o.maxSuccessiveMerges = count;
        return o;
    }

    public int maxSuccessiveMerges() {
        return maxSuccessiveMerges;
    }

    static void checkMaxSuccessiveMerges(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("maxSuccessiveMerges must be >= 0 (0 = off): " + count);
        }
    }

    /** Bytes per second that flushes and compactions may write (0 = unlimited). */
    public Options withBackgroundRateLimit(long bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("backgroundRateLimit must be >= 0: " + bytesPerSecond);
        }
        Options o = copy();
        o.backgroundRateLimit = bytesPerSecond;
        return o;
    }

    /**
     * Write-stall triggers: writers stop while {@code maxImmutableMemtables} memtables wait for flush or
     * {@code level0Stop} tables sit in level 0, and are slowed from {@code level0Slowdown} tables on.
     */
    public Options withWriteStallTriggers(int maxImmutableMemtables, int level0Slowdown, int level0Stop) {
        if (maxImmutableMemtables < 1 || level0Slowdown < 1 || level0Stop < level0Slowdown) {
            throw new IllegalArgumentException("need maxImmutableMemtables >= 1 and 1 <= level0Slowdown <= level0Stop: "
                    + maxImmutableMemtables + ", " + level0Slowdown + ", " + level0Stop);
        }
        Options o = copy();
        o.maxImmutableMemtables = maxImmutableMemtables;
        o.level0SlowdownWritesTrigger = level0Slowdown;
        o.level0StopWritesTrigger = level0Stop;
        return o;
    }

    /** Compaction debt (bytes above level targets) at which writes slow down, and at which they stop. */
    public Options withPendingCompactionLimits(long softBytes, long hardBytes) {
        if (softBytes <= 0 || hardBytes < softBytes) {
            throw new IllegalArgumentException("need 0 < soft <= hard: " + softBytes + ", " + hardBytes);
        }
        Options o = copy();
        o.softPendingCompactionBytes = softBytes;
        o.hardPendingCompactionBytes = hardBytes;
        return o;
    }

    /** While slowed down, writers are paced to this many bytes per second in total. */
    public Options withDelayedWriteRate(long bytesPerSecond) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("delayedWriteRate must be positive: " + bytesPerSecond);
        }
        Options o = copy();
        o.delayedWriteRate = bytesPerSecond;
        return o;
    }

    /**
     * Publishes the database's meters (write stalls, flushes, compactions, memtables, block cache, log syncs,
     * read views; see docs/operations.md) in {@code registry}, tagged with the database directory, and
     * removes them at close. Null, the default, publishes nothing: micrometer-core is an optional dependency
     * and is not needed at run time unless a registry is given.
     */
    public Options withMeterRegistry(MeterRegistry registry) {
        Options o = copy();
        o.meterRegistry = registry;
        return o;
    }

    /**
     * The CPU priority at which an ingestion brings its files in and checks them (link or copy, two syncs, a
     * read of every block): the bulk of its CPU time. {@link CpuPriority#NORMAL}, the default, does it on
     * the caller's thread; {@code LOW} and {@code IDLE} on threads of the database's own at that priority
     * while the caller waits, so that the work gives way to the application's threads (see
     * {@link CpuPriority} for what each level costs). Installing the tables stays on the caller's thread
     * at its own priority: it holds locks that flushes and compactions need.
     */
    public Options withIngestCpuPriority(CpuPriority priority) {
        Options o = copy();
        o.ingestCpuPriority = Objects.requireNonNull(priority, "priority");
        return o;
    }

    /**
     * Where the database reports what it does (as Pebble's {@code Options.Logger}): everything from opening to
     * close, the database's background threads included. Routine events (open, recovery figures, retries)
     * are {@code DEBUG}; {@code WARNING} means data was dropped or a file could not be removed; {@code ERROR}
     * means background work failed. The default is {@code System.getLogger("io.varve.core")}, which an
     * application routes with its platform logging backend; a library embedding Varve can pass its own.
     */
    public Options withLogger(System.Logger logger) {
        Options o = copy();
        o.logger = Objects.requireNonNull(logger, "logger");
        return o;
    }

    public System.Logger logger() {
        return logger;
    }

    public CpuPriority ingestCpuPriority() {
        return ingestCpuPriority;
    }

    public CompactionSettings compactionSettings() {
        return compactionSettings;
    }

    public int maxBackgroundCompactions() {
        return maxBackgroundCompactions;
    }

    public CompactionFilter compactionFilter() {
        return compactionFilter;
    }

    public long backgroundRateLimit() {
        return backgroundRateLimit;
    }

    public int maxImmutableMemtables() {
        return maxImmutableMemtables;
    }

    public int level0SlowdownWritesTrigger() {
        return level0SlowdownWritesTrigger;
    }

    public int level0StopWritesTrigger() {
        return level0StopWritesTrigger;
    }

    public long softPendingCompactionBytes() {
        return softPendingCompactionBytes;
    }

    public long hardPendingCompactionBytes() {
        return hardPendingCompactionBytes;
    }

    public long delayedWriteRate() {
        return delayedWriteRate;
    }

    public long writeBufferSize() {
        return writeBufferSize;
    }

    public WalRecoveryMode walRecovery() {
        return walRecovery;
    }

    public boolean unorderedWrite() {
        return unorderedWrite;
    }

    public boolean writeAheadLog() {
        return writeAheadLog;
    }

    public FileSystem fileSystem() {
        return fileSystem;
    }

    public TableOptions tableOptions() {
        return tableOptions;
    }

    public long blockCacheSize() {
        return blockCacheSize;
    }

    /** The shared block cache given to {@link #withBlockCache}, or null. */
    public SharedBlockCache blockCache() {
        return blockCache;
    }

    /** The shared memtable budget given to {@link #withWriteBufferManager}, or null. */
    public WriteBufferManager writeBufferManager() {
        return writeBufferManager;
    }

    public boolean verifyEveryBlockLoad() {
        return verifyEveryBlockLoad;
    }

    /** The registry given to {@link #withMeterRegistry}, or null; Object so that callers link without Micrometer. */
    Object meterRegistry() {
        return meterRegistry;
    }
}
