package io.varve.core.internal;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOnlyDbException;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.Transaction;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.metrics.EngineStatistics;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.ingest.RangeLatch;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.txn.TransactionOptions;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A database opened by {@link ReadOnlyOpener}: the state of the directory when it was opened, frozen. Reads
 * go through the same {@link ReadPath} as a writable database's, at one fixed sequence over a version set
 * that never changes; every call that would write, or change the directory, throws
 * {@link ReadOnlyDbException}.
 *
 * <p>It owns no log, memtable writer, flush or compaction thread — only the reclaimer thread that frees
 * views and iterators — and holds no lock on the directory. Closing follows {@link DbImpl}'s order for the
 * parts it has: reads are refused and the running ones awaited, then iterators, snapshots, views, the
 * reclaimer and the table cache are released.
 */
public final class ReadOnlyDb implements Db {

    private final Path dir;
    private final Reclaimer reclaimer;
    private final TableCache tableCache;
    private final VersionSet versions;
    /** The handle of each family by id (null: no such family). */
    private final ColumnFamily[] handles;
    private final long sequence;
    private final SnapshotList snapshots = new SnapshotList();
    private final ReadPath reads;
    private final DbProperties properties;
    private final EngineStatistics statistics;
    private volatile boolean closed;

    ReadOnlyDb(Path dir, Reclaimer reclaimer, BlockCache blockCache, TableCache tableCache, VersionSet versions,
               List<DbRecovery.FamilyInfo> families, long sequence, int oversizedRecordsAtOpen,
               System.Logger log) {
        this.dir = dir;
        this.reclaimer = reclaimer;
        this.tableCache = tableCache;
        this.versions = versions;
        this.sequence = sequence;
        this.handles = new ColumnFamily[families.stream().mapToInt(DbRecovery.FamilyInfo::id).max().orElse(0) + 1];
        for (DbRecovery.FamilyInfo family : families) {
            handles[family.id()] = ApiAccess.get().newColumnFamily(this, family.id(), family.name());
        }
        // Reads resolve merge operands with the operators the options give, as a writable database does.
        MergeOperator[] mergeOperators = new MergeOperator[handles.length];
        for (DbRecovery.FamilyInfo family : families) {
            mergeOperators[family.id()] = family.options().mergeOperator();
        }
        this.reads = new ReadPath(versions, tableCache, snapshots, () -> sequence, new ReadGate(this::closedException),
                id -> id >= 0 && id < mergeOperators.length ? mergeOperators[id] : null, log);
        this.statistics = new ReadOnlyStatistics(blockCache, versions);
        this.properties = new DbProperties(versions, new DbProperties.Activity() {
            @Override
            public long pendingCompactionBytes() {
                return 0;
            }

            @Override
            public long compactionTablesMoved() {
                return 0;
            }

            @Override
            public long blockCacheBytes() {
                return blockCache == null ? 0 : blockCache.usedBytes();
            }

            @Override
            public boolean failed() {
                return false;
            }

            @Override
            public boolean writesStopped() {
                return false;
            }

            @Override
            public boolean writesSlowed() {
                return false;
            }
        }, oversizedRecordsAtOpen);
    }

    /** The sequence every read sees unless a snapshot names one: the newest the directory held at open. */
    long sequence() {
        return sequence;
    }

    private int id(ColumnFamily family) {
        Objects.requireNonNull(family, "family");
        if (ApiAccess.get().familyOwner(family) != this) {
            throw new IllegalArgumentException(family + " belongs to another database");
        }
        return ApiAccess.get().familyId(family);
    }

    private ReadOnlyDbException refused(String operation) {
        checkOpen();
        return ApiAccess.get().readOnly(dir, operation);
    }

    // ---- column families

    @Override
    public ColumnFamily defaultColumnFamily() {
        return handles[VersionSet.DEFAULT_FAMILY];
    }

    @Override
    public Optional<ColumnFamily> columnFamily(String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        return columnFamilies().stream().filter(f -> f.name().equals(name)).findFirst();
    }

    @Override
    public List<ColumnFamily> columnFamilies() {
        checkOpen();
        return Arrays.stream(handles).filter(Objects::nonNull).toList();
    }

    @Override
    public ColumnFamily createColumnFamily(String name, ColumnFamilyOptions options) {
        throw refused("createColumnFamily");
    }

    @Override
    public void dropColumnFamily(ColumnFamily family) {
        throw refused("dropColumnFamily");
    }

    // ---- writes: all refused

    @Override
    public void put(WriteOptions options, ColumnFamily family, byte[] key, byte[] value) {
        throw refused("put");
    }

    @Override
    public void put(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment value) {
        throw refused("put");
    }

    @Override
    public void delete(WriteOptions options, ColumnFamily family, byte[] key) {
        throw refused("delete");
    }

    @Override
    public void merge(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment operand) {
        throw refused("merge");
    }

    @Override
    public void deleteRange(ColumnFamily family, byte[] begin, byte[] end) {
        throw refused("deleteRange");
    }

    @Override
    public void write(WriteBatch batch, WriteOptions options) {
        throw refused("write");
    }

    @Override
    public Transaction beginTransaction(WriteOptions options, TransactionOptions transactionOptions) {
        throw refused("beginTransaction");
    }

    @Override
    public void ingestExternalFiles(ColumnFamily family, List<Path> files, IngestOptions options) {
        throw refused("ingestExternalFiles");
    }

    @Override
    public RangeLatch rangeLatch() {
        throw refused("rangeLatch (it orders writes against ingestion)");
    }

    @Override
    public void syncWal() {
        throw refused("syncWal");
    }

    /**
     * Refused: a checkpoint of this view would have to write its memtables (the log tail it replayed, which
     * the writer may since have deleted) into the target. Take checkpoints with the writer.
     */
    @Override
    public void checkpoint(Path target, boolean flushFirst) {
        throw refused("checkpoint");
    }

    @Override
    public void flush() {
        throw refused("flush");
    }

    @Override
    public void compactRange(ColumnFamily family, byte[] begin, byte[] end) {
        throw refused("compactRange");
    }

    @Override
    public int deleteFilesInRange(ColumnFamily family, byte[] begin, byte[] end) {
        throw refused("deleteFilesInRange");
    }

    // ---- reads

    @Override
    public byte[] get(ReadOptions options, ColumnFamily family, byte[] key) {
        return reads.get(options, id(family), key);
    }

    @Override
    public long get(ReadOptions options, ColumnFamily family, MemorySegment key, MemorySegment destination) {
        return reads.get(options, id(family), key, destination);
    }

    @Override
    public List<byte[]> multiGet(ReadOptions options, ColumnFamily family, List<byte[]> keys) {
        return reads.multiGet(options, id(family), keys);
    }

    @Override
    public Snapshot snapshot() {
        checkOpen();
        return snapshots.take(() -> sequence);
    }

    @Override
    public DbIterator iterator(ReadOptions options, ColumnFamily family) {
        return reads.iterator(options, id(family));
    }

    // ---- properties

    @Override
    public String getProperty(ColumnFamily family, String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        String value = properties.get(id(family), name);
        if (value == null) {
            throw new IllegalArgumentException("unknown property '" + name + "'");
        }
        return value;
    }

    @Override
    public long getLongProperty(ColumnFamily family, String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        Long value = properties.number(id(family), name);
        if (value == null) {
            throw new IllegalArgumentException("unknown numeric property '" + name + "'");
        }
        return value;
    }

    @Override
    public EngineStatistics statistics() {
        return statistics;
    }

    @Override
    public List<Long> getApproximateSizes(ColumnFamily family, List<Range> ranges) {
        Objects.requireNonNull(ranges, "ranges");
        checkOpen();
        return properties.approximateSizes(id(family), ranges);
    }

    // ---- closing

    /** For tests: the table readers held open. */
    TableCache tableCache() {
        return tableCache;
    }

    private IllegalStateException closedException() {
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
        reads.close(DbImpl.READ_BOUND_SECONDS, TimeUnit.SECONDS);
        snapshots.closeAll();
        try {
            versions.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a read-only set holds no manifest: never thrown
        } finally {
            reclaimer.close();
            tableCache.close();
        }
    }
}
