package io.varve.core;

import io.varve.core.internal.DbOpener;
import io.varve.core.internal.Ingestion;
import io.varve.core.internal.ReadOnlyOpener;
import io.varve.core.metrics.EngineStatistics;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.ingest.IngestRequiresFlushException;
import io.varve.core.ingest.RangeLatch;
import io.varve.core.txn.TransactionOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An embedded key-value database: an LSM tree with off-heap memtables and a write-ahead log. Keys compare as
 * unsigned bytes. Thread-safe: any number of threads may read and write at once.
 *
 * <p>Errors: null keys or values throw {@link NullPointerException}; any use after {@link #close()} throws
 * {@link IllegalStateException}; an I/O failure on the write path throws {@link UncheckedIOException} and
 * leaves the database failed — later writes are refused with the same cause, because after a failed log
 * write or fsync the engine cannot know what reached the device. Reopen to recover.
 */
public interface Db extends AutoCloseable {

    /**
     * Opens (creating if missing) the database in {@code dir}, replaying its write-ahead logs.
     *
     * @throws io.varve.base.CorruptionException when the logs are damaged beyond what
     *         {@link Options#walRecovery()} accepts
     * @throws IOException when the directory is locked by another process or instance, or on I/O failure
     */
    static Db open(Path dir, Options options) throws IOException {
        return DbOpener.open(dir, options);
    }

    /**
     * Opens the database in {@code dir} for reading only, as it stands now (RocksDB's
     * {@code OpenForReadOnly}): the tables the manifest lists plus the logs' tail, replayed into memory. Takes
     * no lock and writes nothing to the directory, so any number of read-only instances and one writer may
     * use it at once; the view never changes — reopen to see later writes. Every write, and every call that
     * would change the directory (flush, compaction, checkpoint, ingestion, family changes, transactions,
     * {@link #syncWal()}), throws {@link ReadOnlyDbException}. Every table is opened (mapped) here, so the
     * writer deleting obsolete ones later does not affect this instance. See docs/operations.md, "Read-only
     * instances".
     *
     * @throws java.nio.file.NoSuchFileException if {@code dir} does not exist or holds no database (no CURRENT)
     * @throws io.varve.base.CorruptionException when the manifest, a table or the logs are damaged beyond what
     *         {@link Options#walRecovery()} accepts (nothing is repaired)
     * @throws IOException on I/O failure, or when a writer changed the manifest during every attempt
     */
    static Db openReadOnly(Path dir, Options options) throws IOException {
        return ReadOnlyOpener.open(dir, options);
    }

    default void put(byte[] key, byte[] value) {
        put(WriteOptions.DEFAULT, defaultColumnFamily(), key, value);
    }

    default void put(WriteOptions options, byte[] key, byte[] value) {
        put(options, defaultColumnFamily(), key, value);
    }

    /**
     * From off-heap (or heap) memory without an intermediate array: the key and value are copied three times,
     * into the write's batch encoding, the log's write buffer and the memtable's off-heap arena, and nothing
     * else allocates in proportion to them.
     */
    default void put(WriteOptions options, MemorySegment key, MemorySegment value) {
        put(options, defaultColumnFamily(), key, value);
    }

    default void delete(byte[] key) {
        delete(WriteOptions.DEFAULT, defaultColumnFamily(), key);
    }

    default void delete(WriteOptions options, byte[] key) {
        delete(options, defaultColumnFamily(), key);
    }

    /**
     * Deletes every key {@code k} with {@code begin <= k < end} (unsigned byte order): one range tombstone,
     * atomic and visible to snapshots like any write, costing the same whatever the number of keys it covers.
     *
     * @throws IllegalArgumentException if {@code begin >= end}
     */
    default void deleteRange(byte[] begin, byte[] end) {
        deleteRange(defaultColumnFamily(), begin, end);
    }

    /** {@link #deleteRange(byte[], byte[])} in {@code family}. */
    void deleteRange(ColumnFamily family, byte[] begin, byte[] end);

    /** Applies the batch atomically. */
    void write(WriteBatch batch, WriteOptions options);

    /** The value of {@code key}, or null if absent. */
    default byte[] get(byte[] key) {
        return get(ReadOptions.DEFAULT, defaultColumnFamily(), key);
    }

    default byte[] get(ReadOptions options, byte[] key) {
        return get(options, defaultColumnFamily(), key);
    }

    /**
     * Copies the value of {@code key} into {@code destination} without allocating.
     *
     * @return the value's full length (which may exceed the destination's size: then only a prefix was
     *         copied), or -1 if the key is absent
     */
    default long get(ReadOptions options, MemorySegment key, MemorySegment destination) {
        return get(options, defaultColumnFamily(), key, destination);
    }

    /**
     * The values of {@code keys} in the default family, in the same order (null for an absent key), all read
     * at one point: one view and one sequence (the snapshot's, if the options name one). Cheaper than a loop of
     * gets: the view is pinned once and the lookups run in key order. A key may appear more than once.
     */
    default List<byte[]> multiGet(ReadOptions options, List<byte[]> keys) {
        return multiGet(options, defaultColumnFamily(), keys);
    }

    /** {@link #multiGet(ReadOptions, List)} in {@code family}. */
    List<byte[]> multiGet(ReadOptions options, ColumnFamily family, List<byte[]> keys);

    /** A snapshot of the current state. Close it when done. */
    Snapshot snapshot();

    /**
     * Begins a transaction whose commit writes with {@code options}; see {@link Transaction} and
     * {@link TransactionOptions} for optimistic and pessimistic concurrency control.
     */
    Transaction beginTransaction(WriteOptions options, TransactionOptions transactionOptions);

    /** An optimistic transaction with default write options. */
    default Transaction beginTransaction() {
        return beginTransaction(WriteOptions.DEFAULT, TransactionOptions.optimistic());
    }

    default DbIterator iterator() {
        return iterator(ReadOptions.DEFAULT, defaultColumnFamily());
    }

    default DbIterator iterator(ReadOptions options) {
        return iterator(options, defaultColumnFamily());
    }

    /**
     * Makes every write acknowledged so far durable on the device (one fsync of the log, shared with
     * concurrent synced writers). For callers that write with {@link WriteOptions#DEFAULT} and sync on their
     * own schedule, like Redis's {@code appendfsync everysec}; RocksDB's {@code SyncWAL}.
     */
    void syncWal();

    /**
     * Creates in {@code target} (which must not exist) an openable copy of this database at one point: every
     * write acknowledged before the call is in it, and its state is a prefix of the commit order. Tables are
     * hard-linked (copied across file systems), the log tail is copied, and a fresh manifest describes exactly
     * the linked tables; open it with {@link #open}. Foreground writes are not paused for the copy. A crash
     * or failure part-way leaves a target without CURRENT, which {@link #open} refuses; delete it and retry.
     * See docs/operations.md, "Checkpoints".
     *
     * @throws java.nio.file.FileAlreadyExistsException if {@code target} exists
     * @throws IOException on I/O failure (this database is unaffected)
     */
    default void checkpoint(Path target) throws IOException {
        checkpoint(target, false);
    }

    /**
     * {@link #checkpoint(Path)}, flushing the memtables first when {@code flushFirst} (RocksDB's
     * {@code log_size_for_flush = 0}): the checkpoint then holds little or no log to replay.
     */
    void checkpoint(Path target, boolean flushFirst) throws IOException;

    /** Persists the memtables of every column family as tables and waits for it. */
    void flush();

    /** Compacts the key range {@code [begin, end]} (null for unbounded) fully. */
    default void compactRange(byte[] begin, byte[] end) {
        compactRange(defaultColumnFamily(), begin, end);
    }

    /**
     * Drops every table of {@code family} whose keys all lie in {@code [begin, end)} (null: unbounded) in one
     * manifest edit, without rewriting anything (RocksDB's {@code DeleteFilesInRange}; TiKV removes a region
     * this way). Cheap, but not an exact deletion: keys in the range held by memtables or by tables reaching
     * outside it stay, and where a dropped table held a newer version of a key that a deeper table also holds,
     * the older value becomes visible again. Snapshots and open iterators do not protect the dropped data
     * (iterators already open keep reading their pinned tables). Follow with a range deletion or
     * {@link #compactRange} of the range for an exact removal.
     *
     * @return the number of tables dropped
     * @throws IllegalArgumentException if {@code begin} sorts after {@code end}
     */
    int deleteFilesInRange(ColumnFamily family, byte[] begin, byte[] end);

    // ---- column families (see ColumnFamily); the methods above use the default family

    /** The family every single-family method uses; it always exists and cannot be dropped. */
    ColumnFamily defaultColumnFamily();

    /**
     * Creates a column family, durable once this returns.
     *
     * @throws IllegalArgumentException if a family of that name exists or the name is empty
     */
    ColumnFamily createColumnFamily(String name, ColumnFamilyOptions options);

    /**
     * Drops a family and, once no reader holds them, deletes its tables. Iterators already open on it keep
     * working; every other use of the handle fails afterwards.
     */
    void dropColumnFamily(ColumnFamily family);

    /** The live family called {@code name}, if any. */
    Optional<ColumnFamily> columnFamily(String name);

    /** Every live family, the default first. */
    List<ColumnFamily> columnFamilies();

    default void put(ColumnFamily family, byte[] key, byte[] value) {
        put(WriteOptions.DEFAULT, family, key, value);
    }

    void put(WriteOptions options, ColumnFamily family, byte[] key, byte[] value);

    void put(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment value);

    default void delete(ColumnFamily family, byte[] key) {
        delete(WriteOptions.DEFAULT, family, key);
    }

    /**
     * Records {@code operand} for the family's merge operator to apply to {@code key}'s current value when the
     * key is read (RocksDB's Merge): a write that needs no read.
     *
     * @throws IllegalStateException if the family has no merge operator
     */
    void merge(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment operand);

    default void merge(ColumnFamily family, byte[] key, byte[] operand) {
        merge(WriteOptions.DEFAULT, family, MemorySegment.ofArray(Objects.requireNonNull(key, "key")),
                MemorySegment.ofArray(Objects.requireNonNull(operand, "operand")));
    }

    /** {@link #merge(ColumnFamily, byte[], byte[])} on the default family. */
    default void merge(byte[] key, byte[] operand) {
        merge(defaultColumnFamily(), key, operand);
    }

    void delete(WriteOptions options, ColumnFamily family, byte[] key);

    default byte[] get(ColumnFamily family, byte[] key) {
        return get(ReadOptions.DEFAULT, family, key);
    }

    byte[] get(ReadOptions options, ColumnFamily family, byte[] key);

    long get(ReadOptions options, ColumnFamily family, MemorySegment key, MemorySegment destination);

    DbIterator iterator(ReadOptions options, ColumnFamily family);

    /** Compacts the key range {@code [begin, end]} (null for unbounded) of one family fully. */
    void compactRange(ColumnFamily family, byte[] begin, byte[] end);

    // ---- ingestion of external tables (see io.varve.core.ingest and docs/architecture.md, "Ingestion")

    /**
     * Adds the tables {@code files}, written by {@link io.varve.core.sst.SstFileWriter} for {@code family}, to
     * that family in one step: when this returns every key of every file is readable (newer than everything
     * written before the call), snapshots taken before the call never see them, and a crash leaves either all
     * of them or none. The files must not overlap one another. They are placed as deep in the tree as no
     * overlapping data forbids, without being rewritten. Writes are never paused for the file work or a
     * flush; {@link IngestOptions} says what else changes. The file work runs on the calling thread unless
     * {@link Options#withIngestCpuPriority} lowers it onto the database's own threads.
     *
     * @throws java.nio.file.NoSuchFileException if a file is missing (database unchanged)
     * @throws io.varve.base.CorruptionException if a file is damaged or unsorted, naming it and the
     *         offset (database unchanged)
     * @throws IOException if a file cannot be read, linked or copied (database unchanged)
     * @throws IllegalArgumentException for an empty list, a file given twice, overlapping files, or a file
     *         that is not an external table of this family (database unchanged)
     * @throws IngestRequiresFlushException with {@link IngestOptions#allowBlockingFlush()} off, when a
     *         memtable holds keys in the files' ranges (database unchanged)
     * @throws UnsupportedOperationException with {@link Options#withUnorderedWrite unordered writes} unless
     *         {@link IngestOptions#allowWrite()} is on
     * @throws UncheckedIOException if recording the ingestion in the manifest failed: the database then
     *         refuses writes, as after any failed write
     */
    void ingestExternalFiles(ColumnFamily family, List<Path> files, IngestOptions options) throws IOException;

    /** {@link #ingestExternalFiles(ColumnFamily, List, IngestOptions)} into the default family. */
    default void ingestExternalFiles(List<Path> files, IngestOptions options) throws IOException {
        ingestExternalFiles(defaultColumnFamily(), files, options);
    }

    /**
     * TiKV's sequence: ingest without allowing a flush; if a memtable holds keys in the files' ranges, flush
     * (rotating the memtables; writes go on) and ingest again, this time flushing again if writes arrived in
     * the ranges meanwhile. Same contract as {@link #ingestExternalFiles(ColumnFamily, List, IngestOptions)},
     * whose {@code allowBlockingFlush} it sets itself.
     */
    default void ingestExternalFilesWithFlushRetry(ColumnFamily family, List<Path> files,
                                                   IngestOptions options) throws IOException {
        try {
            ingestExternalFiles(family, files, options.withAllowBlockingFlush(false));
        } catch (IngestRequiresFlushException flushFirst) {
            flush();
            ingestExternalFiles(family, files, options.withAllowBlockingFlush(true));
        }
    }

    /**
     * The database's latch on key ranges. Ingestion with {@link IngestOptions#allowWrite()} holds it over the
     * files' ranges; writers that must not race such an ingestion take it over the keys they write.
     */
    RangeLatch rangeLatch();

    // ---- properties (names and meanings: docs/operations.md, "Properties")

    /** A key range {@code [start, limit)}; null for unbounded. */
    record Range(byte[] start, byte[] limit) {
    }

    /**
     * The value of property {@code name} of the default family (RocksDB's {@code GetProperty}), as text.
     *
     * @throws IllegalArgumentException if no property has that name
     */
    default String getProperty(String name) {
        return getProperty(defaultColumnFamily(), name);
    }

    /** {@link #getProperty(String)} of {@code family}; database-wide properties answer the same for any family. */
    String getProperty(ColumnFamily family, String name);

    /**
     * The value of numeric property {@code name} of the default family.
     *
     * @throws IllegalArgumentException if no numeric property has that name
     */
    default long getLongProperty(String name) {
        return getLongProperty(defaultColumnFamily(), name);
    }

    /** {@link #getLongProperty(String)} of {@code family}. */
    long getLongProperty(ColumnFamily family, String name);

    /**
     * For each range, the bytes of the default family's tables overlapping it: whole tables (no table is
     * read), memtables not counted.
     */
    default List<Long> getApproximateSizes(List<Range> ranges) {
        return getApproximateSizes(defaultColumnFamily(), ranges);
    }

    /** {@link #getApproximateSizes(List)} of {@code family}. */
    List<Long> getApproximateSizes(ColumnFamily family, List<Range> ranges);

    /**
     * The database's statistics, read live from the counters the engine keeps: the figures its meters
     * publish (docs/operations.md), with or without a registry. Safe from any thread, also after close. A
     * read-only instance writes nothing and runs no background work: those figures stay 0.
     *
     * <p>A default so that a wrapper implementing {@code Db} keeps compiling; the engine's databases override
     * it, and a wrapper should delegate.
     *
     * @throws UnsupportedOperationException from an implementation that keeps no statistics
     */
    default EngineStatistics statistics() {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no engine statistics");
    }

    /** Waits for in-flight writes, closes the log and releases memory. Idempotent. */
    @Override
    void close();
}
