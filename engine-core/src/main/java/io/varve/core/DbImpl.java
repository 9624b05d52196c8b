package io.varve.core;

import io.varve.core.base.InternalIterator;
import io.varve.core.base.Keys;
import io.varve.core.base.ValueKind;
import io.varve.core.batch.BatchBuilder;
import io.varve.core.compaction.RateLimitedFile;
import io.varve.core.flush.MemtableFlush;
import io.varve.core.fs.FileSystem;
import io.varve.core.iterator.MergingIterator;
import io.varve.core.base.LookupResult;
import io.varve.core.memtable.Memtable;
import io.varve.core.sst.BlockCache;
import io.varve.core.base.LookupResult;
import io.varve.core.sst.TableReader;
import io.varve.core.version.LevelIterator;
import io.varve.core.version.ReadView;
import io.varve.core.version.Reclaimer;
import io.varve.core.version.TableCache;
import io.varve.core.version.TableMeta;
import io.varve.core.version.Version;
import io.varve.core.version.VersionEdit;
import io.varve.core.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The database: owns the directory lock, the commit pipeline, the version set (read views, manifest), the
 * flush thread, the reclaimer, the table cache and the open iterators and snapshots.
 *
 * <p>Reads pin a {@link ReadView} and only then take the sequence they read at, so the view always holds
 * every write that sequence covers: a flush moves data from a memtable to a table in one view swap.
 */
final class DbImpl implements Db {

    private static final System.Logger LOG = System.getLogger(DbImpl.class.getName());

    private final Path dir;
    private final FileSystem fs;
    private final FileSystem.FileLock lock;
    private final Options options;
    private final Reclaimer reclaimer;
    private final BlockCache blockCache;
    private final TableCache tableCache;
    private final VersionSet versions;
    private final CommitPipeline pipeline;
    private final ExecutorService flushThread;
    private final CompactionScheduler compactions;
    private final WriteStalls stalls;
    private final java.util.concurrent.atomic.LongAdder flushBytes = new java.util.concurrent.atomic.LongAdder();

    // What the write-stall triggers look at, refreshed by background work (never computed per write).
    private volatile int immutableCount;
    private volatile int level0Count;
    private volatile long pendingCompactionBytes;
    private final SnapshotList snapshots = new SnapshotList();
    private final Set<DbIteratorImpl> openIterators = ConcurrentHashMap.newKeySet();

    /** Completes when the newest scheduled flush (and so every earlier one) is done. */
    private volatile CompletableFuture<Void> lastFlush = CompletableFuture.completedFuture(null);
    /** Flushes scheduled and not yet finished: close() fails the ones it drops, so no flush() waits forever. */
    private final java.util.Queue<CompletableFuture<Void>> pendingFlushes = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    private DbImpl(Path dir, FileSystem fs, FileSystem.FileLock lock, Options options) throws IOException {
        this.dir = dir;
        this.fs = fs;
        this.lock = lock;
        this.options = options;
        this.reclaimer = new Reclaimer("varve-reclaimer " + dir.getFileName());
        boolean opened = false;
        BlockCache cache = null;
        TableCache tables = null;
        VersionSet versionSet = null;
        ExecutorService flusher = null;
        try {
            cache = options.blockCacheSize() > 0 ? new BlockCache(options.blockCacheSize(), 16) : null;
            tables = new TableCache(fs, n -> DbFiles.table(dir, n), cache);
            VersionSet.Recovered recovered = VersionSet.recover(fs, dir);
            WalReplay.Result replayed = new WalReplay(fs, dir, options, recovered.logNumber(),
                    recovered.lastSequence()).run();
            long nextFile = Math.max(recovered.nextFileNumber(), replayed.maxLogNumber() + 1);
            nextFile = Math.max(nextFile, highestFileNumber() + 1);

            // Recovered memtables go straight to level-0 tables, so every old log can be deleted.
            VersionEdit openEdit = new VersionEdit();
            List<Memtable> recoveredMemtables = new ArrayList<>(replayed.sealed());
            recoveredMemtables.add(replayed.last());
            try {
                for (Memtable m : recoveredMemtables) {
                    long number = nextFile++;
                    TableMeta meta = MemtableFlush.write(fs, DbFiles.table(dir, number), number, m,
                            options.tableOptions());
                    if (meta != null) {
                        openEdit.add(0, meta);
                    }
                }
            } finally {
                recoveredMemtables.forEach(Memtable::release);
            }
            if (!openEdit.added().isEmpty()) {
                fs.syncDirectory(dir);
            }
            long logNumber = nextFile++;
            openEdit.logNumber(logNumber).lastSequence(replayed.lastSequence());
            long capacity = CommitPipeline.memtableCapacity(options.writeBufferSize(), 0);
            Memtable mutable = new Memtable(capacity);
            try {
                versionSet = VersionSet.open(fs, dir, recovered, openEdit, mutable, reclaimer, tables,
                        n -> DbFiles.table(dir, n), nextFile);
            } finally {
                mutable.release(); // the current read view holds it now (or open failed and nothing does)
            }
            deleteObsoleteFiles(versionSet, logNumber);
            flusher = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
                    .name("varve-flush " + dir.getFileName()).unstarted(r));
            this.blockCache = cache;
            this.tableCache = tables;
            this.versions = versionSet;
            this.flushThread = flusher;
            this.pipeline = new CommitPipeline(fs, dir, options, versionSet::newFileNumber,
                    replayed.lastSequence(), mutable, capacity, 0, logNumber, this::memtableRotated, reclaimer::submit);
            this.compactions = new CompactionScheduler(versionSet, fs, dir, tables, options,
                    new CompactionScheduler.SnapshotBounds() {
                        @Override
                        public long oldest() {
                            return snapshots.oldest(pipeline.visibleSequence());
                        }

                        @Override
                        public long newest() {
                            return snapshots.newest(-1);
                        }
                    }, this::backgroundFailed, this::backgroundChanged);
            this.stalls = new WriteStalls(options, new WriteStalls.State() {
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
            });
            opened = true;
            Version current = versionSet.currentVersion();
            LOG.log(System.Logger.Level.INFO, "opened {0} at sequence {1} with {2} tables", dir,
                    replayed.lastSequence(), current.tableCount());
            current.release();
            backgroundChanged();
            compactions.maybeSchedule();
        } finally {
            if (!opened) {
                if (flusher != null) {
                    flusher.shutdownNow();
                }
                if (versionSet != null) {
                    try {
                        versionSet.close();
                    } catch (IOException ignored) {
                        // already failing
                    }
                }
                reclaimer.close();
                if (tables != null) {
                    tables.close();
                }
            }
        }
    }

    static Db open(Path dir, Options options) throws IOException {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        FileSystem fs = options.fileSystem();
        fs.createDirectories(dir);
        FileSystem.FileLock lock;
        try {
            lock = fs.lock(dir.resolve(DbFiles.LOCK));
        } catch (IOException e) {
            throw new IOException("cannot open " + dir + ": it is in use by another process or Db instance ("
                    + e.getMessage() + ")", e);
        }
        try {
            for (String name : fs.list(dir)) {
                if (name.endsWith(".tmp")) {
                    fs.delete(dir.resolve(name));
                }
            }
            return new DbImpl(dir, fs, lock, options);
        } catch (IOException | RuntimeException e) {
            try {
                lock.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private long highestFileNumber() throws IOException {
        long highest = 0;
        for (String name : fs.list(dir)) {
            for (String suffix : new String[] {DbFiles.LOG_SUFFIX, DbFiles.TABLE_SUFFIX}) {
                OptionalLong n = DbFiles.parseNumber(name, suffix);
                if (n.isPresent()) {
                    highest = Math.max(highest, n.getAsLong());
                }
            }
        }
        return highest;
    }

    /** Deletes logs older than {@code logNumber} and tables the version does not list (a crashed flush's). */
    private void deleteObsoleteFiles(VersionSet versionSet, long logNumber) throws IOException {
        Version current = versionSet.currentVersion();
        Set<Long> live = new HashSet<>();
        try {
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : current.level(level)) {
                    live.add(t.fileNumber());
                }
            }
        } finally {
            current.release();
        }
        boolean deleted = false;
        for (String name : fs.list(dir)) {
            OptionalLong log = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
            OptionalLong table = DbFiles.parseNumber(name, DbFiles.TABLE_SUFFIX);
            if ((log.isPresent() && log.getAsLong() < logNumber)
                    || (table.isPresent() && !live.contains(table.getAsLong()))) {
                fs.delete(dir.resolve(name));
                deleted = true;
            }
        }
        if (deleted) {
            fs.syncDirectory(dir);
        }
    }

    // ---- memtable rotation and flush

    /** Called by the pipeline under its log lock: publish the new memtable set and schedule the flush. */
    private void memtableRotated(CommitPipeline.ActiveMemtable sealed, long sealedLastSequence, Memtable fresh,
                                 long newLogNumber) {
        versions.publishMemtables(fresh, immutables -> {
            List<Memtable> next = new ArrayList<>(immutables.size() + 1);
            next.add(sealed.memtable);
            next.addAll(immutables);
            return next;
        });
        fresh.release(); // the views hold it now
        immutableCount++;
        CompletableFuture<Void> done = new CompletableFuture<>();
        pendingFlushes.add(done);
        done.whenComplete((ignored, error) -> pendingFlushes.remove(done));
        lastFlush = done;
        flushThread.execute(() -> flush(sealed, sealedLastSequence, newLogNumber, done));
    }

    /** Runs on the flush thread, oldest sealed memtable first. */
    private void flush(CommitPipeline.ActiveMemtable sealed, long lastSequence, long newLogNumber,
                       CompletableFuture<Void> done) {
        try {
            if (pipeline.failure() != null) {
                throw new IOException("not flushing: the database failed earlier", pipeline.failure());
            }
            sealed.awaitWritesApplied();
            long number = versions.newFileNumber();
            TableMeta meta = MemtableFlush.write(fs, DbFiles.table(dir, number), number, sealed.memtable,
                    options.tableOptions(), file -> new RateLimitedFile(file, compactions.rateLimiter(), flushBytes));
            VersionEdit edit = new VersionEdit().logNumber(newLogNumber).lastSequence(lastSequence);
            if (meta != null) {
                // The table's name must be durable before the manifest refers to it.
                fs.syncDirectory(dir);
                edit.add(0, meta);
            }
            versions.logAndApply(edit, immutables -> {
                List<Memtable> next = new ArrayList<>(immutables);
                next.remove(sealed.memtable);
                return next;
            });
            reclaimer.submit(() -> deleteLogsBelow(newLogNumber));
            backgroundChanged();
            compactions.maybeSchedule();
            done.complete(null);
        } catch (IOException e) {
            backgroundFailed(e);
            done.completeExceptionally(e);
        } catch (RuntimeException | Error e) {
            backgroundFailed(new IOException("flush failed", e));
            done.completeExceptionally(e);
        }
    }

    /** A flush or compaction failed: fail the database and wake stalled writers so they see it. */
    private void backgroundFailed(IOException e) {
        pipeline.failFromBackground(e);
        stalls.changed();
    }

    /** Refreshes what write stalls look at after a flush or compaction, and re-checks stalled writers. */
    private void backgroundChanged() {
        ReadView view = versions.acquire();
        try {
            immutableCount = view.immutables().size();
            level0Count = view.version().level(0).size();
        } finally {
            view.release();
        }
        pendingCompactionBytes = compactions.pendingBytes();
        stalls.changed();
    }

    private void deleteLogsBelow(long logNumber) {
        try {
            for (String name : fs.list(dir)) {
                OptionalLong n = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
                if (n.isPresent() && n.getAsLong() < logNumber) {
                    fs.delete(dir.resolve(name));
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not delete obsolete logs in " + dir, e);
        }
    }

    // ---- writes

    @Override
    public void put(byte[] key, byte[] value) {
        put(WriteOptions.DEFAULT, key, value);
    }

    @Override
    public void put(WriteOptions options, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        put(options, MemorySegment.ofArray(key), MemorySegment.ofArray(value));
    }

    @Override
    public void put(WriteOptions options, MemorySegment key, MemorySegment value) {
        Objects.requireNonNull(options, "options");
        BatchBuilder builder = new BatchBuilder();
        builder.add(ValueKind.PUT, 0, Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        commit(builder, options);
    }

    @Override
    public void delete(byte[] key) {
        delete(WriteOptions.DEFAULT, key);
    }

    @Override
    public void delete(WriteOptions options, byte[] key) {
        Objects.requireNonNull(options, "options");
        BatchBuilder builder = new BatchBuilder();
        builder.add(ValueKind.DELETE, 0, MemorySegment.ofArray(Objects.requireNonNull(key, "key")), null);
        commit(builder, options);
    }

    @Override
    public void write(WriteBatch batch, WriteOptions options) {
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(options, "options");
        commit(batch.builder(), options);
    }

    private void commit(BatchBuilder builder, WriteOptions options) {
        checkOpen();
        stalls.beforeWrite(builder.byteSize());
        pipeline.commit(builder.encode(), builder.count(), builder.payloadBytes(), options.sync());
    }

    // ---- reads

    @Override
    public byte[] get(byte[] key) {
        return get(ReadOptions.DEFAULT, key);
    }

    @Override
    public byte[] get(ReadOptions options, byte[] key) {
        Objects.requireNonNull(key, "key");
        byte[][] result = new byte[1][];
        lookup(options, MemorySegment.ofArray(key), value -> result[0] = Keys.toArray(value));
        return result[0];
    }

    @Override
    public long get(ReadOptions options, MemorySegment key, MemorySegment destination) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(destination, "destination");
        long[] length = {-1};
        lookup(options, key, value -> {
            MemorySegment.copy(value, 0, destination, 0, Math.min(value.byteSize(), destination.byteSize()));
            length[0] = value.byteSize();
        });
        return length[0];
    }

    /**
     * Finds the newest visible entry of {@code key}: memtables newest first, then level 0 newest first, then
     * one table per deeper level. Calls {@code sink} with the value while its memory is still pinned; does
     * not call it for an absent or deleted key.
     */
    private void lookup(ReadOptions options, MemorySegment key, Consumer<MemorySegment> sink) {
        ReadView view = pinView();
        try {
            long sequence = readSequence(options);
            LookupResult result = new LookupResult();
            for (Memtable memtable : view.memtablesNewestFirst()) {
                if (memtable.get(key, sequence, result)) {
                    if (result.status() == LookupResult.Status.FOUND) {
                        sink.accept(result.value());
                    }
                    return;
                }
            }
            Version version = view.version();
            for (TableMeta table : version.level(0)) {
                if (table.covers(key) && lookupTable(table, key, sequence, result, sink)) {
                    return;
                }
            }
            for (int level = 1; level < Version.NUM_LEVELS; level++) {
                TableMeta table = version.findInSortedLevel(level, key);
                if (table != null && lookupTable(table, key, sequence, result, sink)) {
                    return;
                }
            }
        } finally {
            view.release();
        }
    }

    /** True when the table decided the key (found or deleted). */
    private boolean lookupTable(TableMeta table, MemorySegment key, long sequence, LookupResult result,
                                Consumer<MemorySegment> sink) {
        TableReader reader = tableCache.acquire(table);
        try {
            reader.get(key, sequence, result);
            switch (result.status()) {
                case FOUND -> {
                    sink.accept(result.value());
                    return true;
                }
                case DELETED -> {
                    return true;
                }
                default -> {
                    return false;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            reader.release();
        }
    }

    @Override
    public Snapshot snapshot() {
        checkOpen();
        // A sequence alone pins nothing: flushes keep every version, and compaction keeps what snapshots need.
        return snapshots.take(pipeline.visibleSequence());
    }

    @Override
    public DbIterator iterator() {
        return iterator(ReadOptions.DEFAULT);
    }

    @Override
    public DbIterator iterator(ReadOptions options) {
        Objects.requireNonNull(options, "options");
        ReadView view = pinView();
        DbIteratorImpl iterator;
        List<InternalIterator> children = new ArrayList<>();
        try {
            long sequence = readSequence(options);
            for (Memtable memtable : view.memtablesNewestFirst()) {
                children.add(memtable.iterator());
            }
            Version version = view.version();
            for (TableMeta table : version.level(0)) {
                TableReader reader = tableCache.acquire(table);
                try {
                    children.add(reader.newIterator());
                } finally {
                    reader.release();
                }
            }
            for (int level = 1; level < Version.NUM_LEVELS; level++) {
                if (version.level(level).size() > 0) {
                    children.add(new LevelIterator(version.level(level), tableCache));
                }
            }
            iterator = new DbIteratorImpl(this, view, new MergingIterator(children), sequence,
                    options.lowerBoundUnsafe(), options.upperBoundUnsafe());
        } catch (RuntimeException e) {
            children.forEach(InternalIterator::close);
            view.release();
            throw e;
        }
        openIterators.add(iterator);
        if (closed) {
            // Lost a race with close(): do not hand out an iterator close() did not see.
            iterator.close();
            checkOpen();
        }
        return iterator;
    }

    private long readSequence(ReadOptions options) {
        Snapshot snapshot = options == null ? null : options.snapshot();
        if (snapshot == null) {
            return pipeline.visibleSequence();
        }
        if (snapshot instanceof SnapshotList.Entry entry) {
            entry.checkUsable(snapshots);
        }
        return snapshot.sequence();
    }

    private ReadView pinView() {
        checkOpen();
        return versions.acquire();
    }

    void iteratorClosed(DbIteratorImpl iterator) {
        openIterators.remove(iterator);
    }

    // ---- maintenance

    @Override
    public void flush() {
        checkOpen();
        pipeline.rotateNow();
        try {
            lastFlush.join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable cause = e.getCause();
            throw new UncheckedIOException("flush failed", cause instanceof IOException io ? io : new IOException(cause));
        }
    }

    @Override
    public void compactRange(byte[] begin, byte[] end) {
        checkOpen();
        if (begin != null && end != null && Keys.compare(begin, end) > 0) {
            throw new IllegalArgumentException("compactRange: begin sorts after end");
        }
        flush();
        try {
            compactions.compactRange(begin, end);
        } catch (IOException e) {
            backgroundFailed(e);
            throw new UncheckedIOException("compactRange failed", e);
        }
    }

    /** For tests and benchmarks: waits until background compaction has nothing left to do. */
    void awaitCompactions() {
        compactions.awaitIdle();
    }

    /** Statistics: {flush bytes, compaction bytes written, compaction bytes read, stall nanos, stops, slowdowns}. */
    long[] backgroundStatistics() {
        return new long[] {flushBytes.sum(), compactions.bytesWritten.sum(), compactions.bytesRead.sum(),
                stalls.stallNanos.sum(), stalls.stops.sum(), stalls.slowdowns.sum()};
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("database " + dir + " is closed");
        }
    }

    /** Statistics for tests and benchmarks: fsyncs done and synced commits served. */
    long[] syncStatistics() {
        return new long[] {pipeline.syncCount(), pipeline.commitsSynced()};
    }

    /** For tests: the current version (retained; release it). */
    Version currentVersion() {
        return versions.currentVersion();
    }

    /** For tests: wait until everything released so far has been freed. */
    void awaitReclaimed() {
        reclaimer.drain();
    }

    TableCache tableCache() {
        return tableCache;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Exception> failures = new ArrayList<>();
        try {
            pipeline.close();
        } catch (IOException | RuntimeException e) {
            failures.add(e);
        }
        // Let a running flush finish (its table is then in the manifest); queued ones are dropped, the log has them.
        flushThread.shutdownNow();
        try {
            if (!flushThread.awaitTermination(1, TimeUnit.MINUTES)) {
                failures.add(new IOException("flush thread did not stop within a minute"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Flushes dropped from the queue never run: release whoever waits in flush() for them.
        for (CompletableFuture<Void> dropped : List.copyOf(pendingFlushes)) {
            dropped.completeExceptionally(new IOException("database closed before this flush ran; the log keeps its data"));
        }
        compactions.close();
        for (DbIteratorImpl iterator : List.copyOf(openIterators)) {
            iterator.close();
        }
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
