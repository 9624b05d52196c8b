package io.varve.core.internal;

import io.varve.base.concurrent.LockStripes;
import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.Transaction;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.metrics.EngineStatistics;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.core.internal.ingest.ExternalTables;
import io.varve.core.internal.ingest.ImportThreads;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.ingest.RangeLatch;
import io.varve.core.internal.txn.KeyLocks;
import io.varve.core.txn.TransactionOptions;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The database facade: wires the parts {@link DbOpener} and {@link DbRecovery} start and hands each call to its
 * part — writes to the {@link CommitPipeline}, reads to the {@link ReadPath}, flushes to the {@link Flusher},
 * compactions to the {@link CompactionScheduler}, families to {@link ColumnFamilies}, ingestion to
 * {@link Ingestion}.
 *
 * <p>Column families: each has its own memtables, versions, compactions and {@link ColumnFamilyOptions};
 * they share the log, the sequence numbers and the manifest. Memtables of all families rotate together with
 * the log (an empty one is kept), so each flush covers every family and empties every older log; each
 * family's manifest edits carry its own log number, which keeps recovery right when a crash keeps only some
 * of one flush's edits.
 *
 * <h2>Shutdown</h2>
 * {@link #close()} sets {@code closed}, then stops the parts in an order where nothing it frees is still in
 * use and nothing waits forever (docs/architecture.md, "Shutdown", has the whole protocol):
 * stalled writers wake (also those waiting for a shared memtable budget, which this database then leaves);
 * reads are refused and the running ones awaited ({@value #READ_BOUND_SECONDS} s);
 * the pipeline waits for commits in flight and closes the logs; the running flush finishes, queued ones are
 * dropped (1 min); running compactions finish (5 min); then iterators, snapshots, views, the reclaimer, the
 * table cache and the directory lock are released. Every operation cut short answers with the same
 * {@link IllegalStateException} as a call made after close; background failures caused by the closing are
 * not reported as disk failures.
 */
public final class DbImpl implements Db {

    private final System.Logger log;
    /** How long close() waits for point lookups and iterator calls already running. */
    static final long READ_BOUND_SECONDS = 10;

    private final Path dir;
    private final FileSystem fs;
    private final FileSystem.FileLock lock;
    private final Reclaimer reclaimer;
    private final TableCache tableCache;
    private final VersionSet versions;
    private final Flusher flusher;
    private final CommitPipeline pipeline;
    private final CompactionScheduler compactions;
    private final WriteStalls stalls;
    private final ColumnFamilies families;
    private final SnapshotList snapshots = new SnapshotList();
    private final ReadPath reads;
    private final RangeLatch rangeLatch = new RangeLatch();
    private final KeyLocks keyLocks = new KeyLocks();
    private final LockStripes transactionStripes = new LockStripes(256);
    private final Ingestion ingestion;
    private final DbStatistics statistics;
    private final DbProperties properties;
    /** This database's share of a memtable budget shared with other databases, or null. */
    private final WriteBufferBudget.Member writeBuffers;
    private volatile boolean closed;
    /** Failures of background work still running when close began (close throws them). */
    private final List<IOException> failedWhileClosing = new java.util.concurrent.CopyOnWriteArrayList<>();

    // What the write-stall triggers look at, refreshed by background work (never computed per write).
    private volatile int immutableCount;
    private volatile int level0Count;
    private volatile long pendingCompactionBytes;

    /**
     * Starts the parts over a recovered directory. Each part started is pushed on {@code started}; if this
     * throws, the caller closes them, newest first.
     */
    DbImpl(Path dir, FileSystem fs, FileSystem.FileLock lock, Options options, Reclaimer reclaimer,
           BlockCache blockCache, TableCache tableCache, DbRecovery.Result recovered, Deque<AutoCloseable> started)
            throws IOException {
        this.log = options.logger();
        this.dir = dir;
        this.fs = fs;
        this.lock = lock;
        this.reclaimer = reclaimer;
        this.tableCache = tableCache;
        this.versions = recovered.versions();
        List<DbRecovery.FamilyInfo> known = recovered.families();
        this.flusher = new Flusher(fs, dir, versions, tableCache, reclaimer, this::familyOptions, () -> immutableCount++,
                this::backgroundChanged, this::backgroundFailed, () -> closed, this::closedException, options.logger());
        started.push(() -> flusher.close());
        this.pipeline = new CommitPipeline(fs, dir, options, versions::newFileNumber, recovered.lastSequence(),
                recovered.pipelineFamilies(), recovered.logNumber(), flusher::memtableRotated, reclaimer::submit);
        started.push(pipeline::close);
        this.families = new ColumnFamilies(known, versions, pipeline, this::checkOpen, this::backgroundFailed);
        this.compactions = new CompactionScheduler(versions, fs, dir, tableCache, options, this::familyOptions,
                new CompactionScheduler.SnapshotBounds() {
                    @Override
                    public long oldest() {
                        return snapshots.oldest(pipeline::visibleSequence);
                    }

                    @Override
                    public long newest() {
                        return snapshots.newest(-1);
                    }
                }, this::backgroundFailed, this::backgroundChanged, this::closedException);
        started.push(compactions::close);
        flusher.attach(pipeline, compactions);
        this.stalls = new WriteStalls(options, new StallCounts(), this::closedException);
        this.reads = new ReadPath(versions, tableCache, snapshots, pipeline::visibleSequence,
                new ReadGate(this::closedException), id -> families.mergeOperator(id), options.logger());
        pipeline.attachSuccessiveMerges(new SuccessiveMerges(families::options, reads, options.logger()));
        this.statistics = DbStatistics.bind(options, dir, versions, pipeline, compactions, stalls, blockCache,
                flusher.bytesWritten(), flusher.timer());
        this.properties = new DbProperties(versions, statistics, stalls, () -> pipeline.failure() != null,
                recovered.oversizedRecords());
        this.ingestion = new Ingestion(fs, new ImportThreads(options.ingestCpuPriority()),
                new ExternalTables.Destination(dir, n -> DbFiles.table(dir, n), versions::newFileNumber), pipeline,
                versions, compactions, rangeLatch, this::flush, () -> {
                    backgroundChanged();
                    compactions.maybeSchedule();
                }, this::backgroundFailed, options.logger());
        this.writeBuffers = options.writeBufferManager() == null ? null
                : ApiAccess.get().writeBufferBudget(options.writeBufferManager()).join(new BudgetSource(versions, pipeline));
        if (writeBuffers != null) {
            started.push(writeBuffers);
        }
        log.log(System.Logger.Level.DEBUG, "opened {0} at sequence {1} with {2} tables in {3} column families",
                dir, recovered.lastSequence(), recovered.tableCount(), known.size());
        backgroundChanged();
        compactions.maybeSchedule();
    }

    /** What write stalls look at: the counts background work last published. */
    private final class StallCounts implements WriteStalls.State {
        @Override
        public int immutableMemtables() {
            return immutableCount;
        }

        @Override
        public int level0Tables() {
            return level0Count;
        }

        @Override
        public long pendingCompactionBytes() {
            return pendingCompactionBytes;
        }

        @Override
        public Throwable failure() {
            return pipeline.failure();
        }
    }

    // ---- background work

    private ColumnFamilyOptions familyOptions(int id) {
        return families == null ? null : families.options(id);
    }

    /**
     * A flush, compaction, ingestion or family change failed: fail the database and wake stalled writers so
     * they see it. Once close has begun nobody else would: close reports it. (Background work that close
     * cuts short reports nothing here; its owner tells the two apart.)
     */
    private void backgroundFailed(IOException e) {
        if (closed) {
            failedWhileClosing.add(e);
            return;
        }
        pipeline.failFromBackground(e);
        stalls.changed();
        if (writeBuffers != null) {
            writeBuffers.refresh();
        }
    }

    /** Refreshes what write stalls look at after a flush or compaction, and re-checks stalled writers. */
    private void backgroundChanged() {
        int[] worst = new int[2]; // immutable memtables, level-0 tables: the fullest family's
        try {
            versions.forEachView(view -> {
                worst[0] = Math.max(worst[0], view.immutables().size());
                worst[1] = Math.max(worst[1], view.version().level(0).size());
            });
        } catch (IllegalStateException closedMeanwhile) {
            return;
        }
        immutableCount = worst[0];
        level0Count = worst[1];
        pendingCompactionBytes = compactions.pendingBytes();
        stalls.changed();
        if (writeBuffers != null) {
            writeBuffers.refresh();
        }
    }

    // ---- column families

    @Override
    public ColumnFamily defaultColumnFamily() {
        return families.defaultFamily();
    }

    @Override
    public ColumnFamily createColumnFamily(String name, ColumnFamilyOptions options) {
        return families.create(name, options);
    }

    @Override
    public void dropColumnFamily(ColumnFamily handle) {
        families.drop(handle);
    }

    @Override
    public Optional<ColumnFamily> columnFamily(String name) {
        checkOpen();
        return families.byName(name);
    }

    @Override
    public List<ColumnFamily> columnFamilies() {
        checkOpen();
        return families.all();
    }

    // ---- writes

    @Override
    public void put(WriteOptions options, ColumnFamily family, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        put(options, family, MemorySegment.ofArray(key), MemorySegment.ofArray(value));
    }

    @Override
    public void put(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment value) {
        Objects.requireNonNull(options, "options");
        ApiAccess.get().requireStorable(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        WriteBatchBuilder builder = new WriteBatchBuilder(WriteBatchBuilder.recordBytes(key, value));
        builder.add(ValueKind.PUT, families.id(family), key, value);
        commit(builder, options);
    }

    @Override
    public void delete(WriteOptions options, ColumnFamily family, byte[] key) {
        Objects.requireNonNull(options, "options");
        MemorySegment keySegment = MemorySegment.ofArray(Objects.requireNonNull(key, "key"));
        ApiAccess.get().requireStorable(keySegment, null);
        WriteBatchBuilder builder = new WriteBatchBuilder();
        builder.add(ValueKind.DELETE, families.id(family), keySegment, null);
        commit(builder, options);
    }

    @Override
    public void deleteRange(ColumnFamily family, byte[] begin, byte[] end) {
        write(new WriteBatch().deleteRange(family, begin, end), WriteOptions.DEFAULT);
    }

    @Override
    public void merge(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment operand) {
        Objects.requireNonNull(options, "options");
        int id = families.id(family);
        families.requireMergeOperator(id);
        ApiAccess.get().requireStorable(Objects.requireNonNull(key, "key"), Objects.requireNonNull(operand, "operand"));
        WriteBatchBuilder builder = new WriteBatchBuilder(WriteBatchBuilder.recordBytes(key, operand));
        builder.add(ValueKind.MERGE, id, key, operand);
        commit(builder, options);
    }

    @Override
    public void write(WriteBatch batch, WriteOptions options) {
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(options, "options");
        ApiAccess bridge = ApiAccess.get();
        if (bridge.batchOwner(batch) != null && bridge.batchOwner(batch) != families) {
            throw new IllegalArgumentException("the batch uses column families of another database");
        }
        for (int family : bridge.mergeFamilies(batch)) {
            families.requireMergeOperator(family);
        }
        commit(bridge.builder(batch), options);
    }

    private void commit(WriteBatchBuilder builder, WriteOptions options) {
        checkOpen();
        stalls.beforeWrite(builder.byteSize(), options.noSlowdown());
        if (writeBuffers != null && !writeBuffers.beforeWrite(options.noSlowdown())) {
            throw ApiAccess.get().writeStall("writes are stopped until flushes bring the shared write buffers under budget");
        }
        // The pipeline refuses families that were dropped (it checks under its lock, so no write slips in).
        pipeline.commit(builder.sealed(), builder.count(), builder.payloadBytes(), options.sync(),
                builder.columnFamilies());
        if (writeBuffers != null) {
            writeBuffers.afterWrite();
        }
    }

    // ---- reads

    @Override
    public byte[] get(ReadOptions options, ColumnFamily family, byte[] key) {
        return reads.get(options, families.id(family), key);
    }

    @Override
    public long get(ReadOptions options, ColumnFamily family, MemorySegment key, MemorySegment destination) {
        return reads.get(options, families.id(family), key, destination);
    }

    // ---- transactions

    @Override
    public Transaction beginTransaction(WriteOptions options, TransactionOptions transactionOptions) {
        checkOpen();
        return ApiAccess.get().newTransaction(this, options, transactionOptions);
    }

    public long newestSequence(int family, byte[] key, long since) {
        return reads.newestSequence(family, key, since);
    }

    public int familyIdOf(ColumnFamily family) {
        return families.id(family);
    }

    public KeyLocks keyLocks() {
        return keyLocks;
    }

    public LockStripes transactionStripes() {
        return transactionStripes;
    }

    @Override
    public List<byte[]> multiGet(ReadOptions options, ColumnFamily family, List<byte[]> keys) {
        return reads.multiGet(options, families.id(family), keys);
    }

    @Override
    public Snapshot snapshot() {
        checkOpen();
        // A sequence alone pins nothing: flushes keep every version, and compaction keeps what snapshots need.
        return snapshots.take(pipeline::visibleSequence);
    }

    @Override
    public DbIterator iterator(ReadOptions options, ColumnFamily family) {
        return reads.iterator(options, families.id(family));
    }

    // ---- ingestion

    @Override
    public void ingestExternalFiles(ColumnFamily family, List<Path> files, IngestOptions options)
            throws IOException {
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(options, "options");
        checkOpen();
        int id = families.id(family);
        try {
            ingestion.ingest(id, family.name(), List.copyOf(files), options);
        } catch (IllegalStateException e) {
            // A close that cuts the ingestion short surfaces in whichever part it reached first (the import
            // threads, the version set); the caller gets the one message every other operation gives.
            if (closed) {
                IllegalStateException closedNow = closedException();
                closedNow.initCause(e);
                throw closedNow;
            }
            throw e;
        }
    }

    @Override
    public RangeLatch rangeLatch() {
        return rangeLatch;
    }

    // ---- maintenance

    @Override
    public void syncWal() {
        checkOpen();
        if (pipeline.logging()) {
            pipeline.syncLog();
        } else {
            flusher.flushAndWait(); // without a log, the memtables' writes become durable only in tables
        }
    }

    @Override
    public void checkpoint(Path target, boolean flushFirst) throws IOException {
        Objects.requireNonNull(target, "target");
        checkOpen();
        Checkpoint.create(this, target, flushFirst);
    }

    @Override
    public void flush() {
        checkOpen();
        flusher.flushAndWait();
    }

    @Override
    public void compactRange(ColumnFamily family, byte[] begin, byte[] end) {
        checkOpen();
        int id = families.id(family);
        if (begin != null && end != null && Keys.compare(begin, end) > 0) {
            throw new IllegalArgumentException("compactRange: begin sorts after end");
        }
        flush();
        try {
            compactions.compactRange(id, begin, end);
        } catch (IOException e) {
            if (closed) {
                throw closedException();
            }
            backgroundFailed(e);
            throw new UncheckedIOException("compactRange failed", e);
        }
    }

    // ---- properties

    @Override
    public String getProperty(ColumnFamily family, String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        String value = properties.get(families.id(family), name);
        if (value == null) {
            throw new IllegalArgumentException("unknown property '" + name + "'");
        }
        return value;
    }

    @Override
    public long getLongProperty(ColumnFamily family, String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        Long value = properties.number(families.id(family), name);
        if (value == null) {
            throw new IllegalArgumentException("unknown numeric property '" + name + "'");
        }
        return value;
    }

    @Override
    public List<Long> getApproximateSizes(ColumnFamily family, List<Range> ranges) {
        Objects.requireNonNull(ranges, "ranges");
        checkOpen();
        return properties.approximateSizes(families.id(family), ranges);
    }

    @Override
    public int deleteFilesInRange(ColumnFamily family, byte[] begin, byte[] end) {
        checkOpen();
        int id = families.id(family);
        if (begin != null && end != null && Keys.compare(begin, end) > 0) {
            throw new IllegalArgumentException("deleteFilesInRange: begin sorts after end");
        }
        try {
            int removed = compactions.deleteFilesInRange(id, begin, end);
            backgroundChanged();
            return removed;
        } catch (IOException e) {
            if (closed) {
                throw closedException();
            }
            backgroundFailed(e);
            throw new UncheckedIOException("deleteFilesInRange failed", e);
        }
    }

    @Override
    public EngineStatistics statistics() {
        return statistics;
    }

    // ---- seams for tests (see DbTestAccess)

    DbStatistics dbStatistics() {
        return statistics;
    }

    CommitPipeline pipeline() {
        return pipeline;
    }

    VersionSet versions() {
        return versions;
    }

    CompactionScheduler compactions() {
        return compactions;
    }

    WriteStalls stalls() {
        return stalls;
    }

    Flusher flusher() {
        return flusher;
    }

    Reclaimer reclaimer() {
        return reclaimer;
    }

    TableCache tableCache() {
        return tableCache;
    }

    ColumnFamilies families() {
        return families;
    }

    Path dir() {
        return dir;
    }

    FileSystem fileSystem() {
        return fs;
    }

    // ---- closing

    /** What every operation throws once the database is closed, or was cut short by close. */
    IllegalStateException closedException() {
        return new IllegalStateException("database " + dir + " is closed");
    }

    private void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        statistics.close();
        List<Exception> failures = new ArrayList<>();
        stalls.close();
        if (writeBuffers != null) {
            writeBuffers.close(); // wakes this database's writers waiting for the budget; others re-check
        }
        reads.close(READ_BOUND_SECONDS, TimeUnit.SECONDS);
        if (!pipeline.logging()) {
            flusher.runQueuedFlushesAtClose(); // the pipeline's close seals the memtables for a last flush
        }
        try {
            pipeline.close();
        } catch (IOException | RuntimeException e) {
            failures.add(e);
        }
        if (!flusher.close()) {
            failures.add(new IOException("flush thread did not stop within a minute"));
        }
        compactions.close();
        ingestion.close();
        failures.addAll(failedWhileClosing); // background work was in flight when close began, and failed
        snapshots.closeAll();
        try {
            versions.close();
        } catch (IOException | RuntimeException e) {
            failures.add(e);
        }
        reclaimer.close();
        tableCache.close();
        try {
            lock.close();
        } catch (IOException e) {
            failures.add(e);
        }
        if (!failures.isEmpty()) {
            IOException failure = new IOException("closing " + dir + " failed", failures.getFirst());
            failures.subList(1, failures.size()).forEach(failure::addSuppressed);
            throw new UncheckedIOException(failure);
        }
    }
}
