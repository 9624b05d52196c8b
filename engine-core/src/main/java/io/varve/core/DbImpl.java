package io.varve.core;

import io.varve.core.base.InternalIterator;
import io.varve.core.base.Keys;
import io.varve.core.base.ValueKind;
import io.varve.core.batch.BatchBuilder;
import io.varve.core.compaction.RateLimitedFile;
import io.varve.core.flush.MemtableFlush;
import io.varve.base.fs.FileSystem;
import io.varve.core.iterator.MergingIterator;
import io.varve.core.base.LookupResult;
import io.varve.core.memtable.Memtable;
import io.varve.core.sst.BlockCache;
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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The database: owns the directory lock, the commit pipeline, the version set (read views, manifest), the
 * flush thread, the reclaimer, the table cache and the open iterators and snapshots.
 *
 * <p>Reads pin a {@link ReadView} and only then take the sequence they read at, so the view always holds
 * every write that sequence covers: a flush moves data from a memtable to a table in one view swap.
 *
 * <p>Column families: each has its own memtables, versions, compactions and {@link ColumnFamilyOptions};
 * they share the log, the sequence numbers and the manifest. Memtables of all families rotate together with
 * the log (an empty one is kept), so each flush covers every family and empties every older log; each
 * family's manifest edits carry its own log number, which keeps recovery right when a crash keeps only some
 * of one flush's edits.
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
    private final io.varve.core.ingest.RangeLatch rangeLatch = new io.varve.core.ingest.RangeLatch();
    private final Ingestion ingestion;
    private final java.util.concurrent.atomic.LongAdder flushBytes = new java.util.concurrent.atomic.LongAdder();
    private final io.varve.core.metrics.WorkTimer flushTimer = new io.varve.core.metrics.WorkTimer();
    private final DbStatistics statistics;

    /** A live family: its handle and options. */
    private record Family(ColumnFamily handle, ColumnFamilyOptions options) {
    }

    /** Live families by id (null: dropped or never used); replaced, never changed in place, under familyLock. */
    private volatile Family[] families;
    private final Object familyLock = new Object();
    private final ColumnFamily defaultFamily;

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
        CommitPipeline createdPipeline = null;
        CompactionScheduler createdCompactions = null;
        try {
            cache = options.blockCacheSize() > 0 ? new BlockCache(options.blockCacheSize(), 16) : null;
            tables = new TableCache(fs, n -> DbFiles.table(dir, n), cache);
            VersionSet.Recovered recovered = VersionSet.recover(fs, dir);
            ManifestCheck.verify(fs, dir, recovered);
            Map<Integer, WalReplay.Family> replayFamilies = new TreeMap<>();
            Family[] known = new Family[recovered.families().stream().mapToInt(VersionSet.RecoveredFamily::id)
                    .max().orElse(0) + 1];
            for (VersionSet.RecoveredFamily rf : recovered.families()) {
                ColumnFamilyOptions familyOptions = rf.id() == VersionSet.DEFAULT_FAMILY
                        ? ColumnFamilyOptions.from(options) : options.columnFamilyOptions(rf.name());
                known[rf.id()] = new Family(new ColumnFamily(this, rf.id(), rf.name()), familyOptions);
                replayFamilies.put(rf.id(), new WalReplay.Family(rf.logNumber(), familyOptions.writeBufferSize()));
            }
            this.families = known;
            this.defaultFamily = known[VersionSet.DEFAULT_FAMILY].handle();
            WalReplay.Result replayed = new WalReplay(fs, dir, options, replayFamilies,
                    recovered.lastSequence()).run();
            // An ingested table's sequence is in no log: the sequence must continue past it too.
            long lastSequence = Math.max(replayed.lastSequence(), recovered.largestTableSequence());
            long nextFile = Math.max(recovered.nextFileNumber(), replayed.maxLogNumber() + 1);
            nextFile = Math.max(nextFile, highestFileNumber() + 1);

            // Recovered memtables go straight to level-0 tables, so every old log can be deleted.
            Map<Integer, VersionEdit> openEdits = new TreeMap<>();
            try {
                for (Map.Entry<Integer, List<Memtable>> e : replayed.memtables().entrySet()) {
                    VersionEdit edit = new VersionEdit().columnFamily(e.getKey());
                    openEdits.put(e.getKey(), edit);
                    for (Memtable m : e.getValue()) {
                        long number = nextFile++;
                        TableMeta meta = MemtableFlush.write(fs, DbFiles.table(dir, number), number, m,
                                known[e.getKey()].options().tableOptions());
                        if (meta != null) {
                            edit.add(0, meta);
                        }
                    }
                }
            } finally {
                replayed.releaseAll();
            }
            if (openEdits.values().stream().anyMatch(edit -> !edit.added().isEmpty())) {
                fs.syncDirectory(dir);
            }
            long logNumber = nextFile++;
            Map<Integer, Memtable> mutables = new TreeMap<>();
            List<CommitPipeline.FamilyMemtable> pipelineFamilies = new ArrayList<>();
            for (Map.Entry<Integer, VersionEdit> e : openEdits.entrySet()) {
                e.getValue().logNumber(logNumber).lastSequence(lastSequence);
                long bufferSize = known[e.getKey()].options().writeBufferSize();
                Memtable mutable = new Memtable(CommitPipeline.memtableCapacity(bufferSize, 0));
                mutables.put(e.getKey(), mutable);
                pipelineFamilies.add(new CommitPipeline.FamilyMemtable(e.getKey(), mutable, bufferSize));
            }
            try {
                versionSet = VersionSet.open(fs, dir, recovered, List.copyOf(openEdits.values()), mutables,
                        reclaimer, tables, n -> DbFiles.table(dir, n), nextFile);
            } finally {
                mutables.values().forEach(Memtable::release); // the read views hold them now (or nothing does)
            }
            deleteObsoleteFiles(versionSet, logNumber);
            flusher = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
                    .name("varve-flush " + dir.getFileName()).unstarted(r));
            this.blockCache = cache;
            this.tableCache = tables;
            this.versions = versionSet;
            this.flushThread = flusher;
            this.pipeline = createdPipeline = new CommitPipeline(fs, dir, options, versionSet::newFileNumber,
                    lastSequence, pipelineFamilies, logNumber, this::memtableRotated, reclaimer::submit);
            this.compactions = createdCompactions = new CompactionScheduler(versionSet, fs, dir, tables, options, this::familyOptions,
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
            this.statistics = DbStatistics.bind(options, dir, versionSet, pipeline, compactions, stalls, cache,
                    flushBytes, flushTimer);
            this.ingestion = new Ingestion(fs, new io.varve.core.ingest.ImportThreads(options.ingestCpuPriority()),
                    new io.varve.core.ingest.ExternalTables.Destination(dir,
                    n -> DbFiles.table(dir, n), versionSet::newFileNumber), pipeline, versionSet, compactions,
                    rangeLatch, this::flush, () -> {
                        backgroundChanged();
                        compactions.maybeSchedule();
                    }, this::backgroundFailed);
            opened = true;
            LOG.log(System.Logger.Level.INFO, "opened {0} at sequence {1} with {2} tables in {3} column families",
                    dir, lastSequence, recovered.tableList().size() + openEdits.values().stream()
                            .mapToInt(edit -> edit.added().size()).sum(), known.length);
            backgroundChanged();
            compactions.maybeSchedule();
        } finally {
            if (!opened) {
                if (createdPipeline != null) {
                    try {
                        createdPipeline.close();
                    } catch (IOException | RuntimeException ignored) {
                        // already failing
                    }
                }
                if (createdCompactions != null) {
                    createdCompactions.close();
                }
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
        Set<Long> live = new HashSet<>();
        for (int family : versionSet.columnFamilies().keySet()) {
            Version current = versionSet.currentVersion(family);
            try {
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (TableMeta t : current.level(level)) {
                        live.add(t.fileNumber());
                    }
                }
            } finally {
                current.release();
            }
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

    /** Called by the pipeline under its log lock: publish the new memtable sets and schedule the flush. */
    private void memtableRotated(List<CommitPipeline.Sealed> sealed, long sealedLastSequence, long newLogNumber) {
        for (CommitPipeline.Sealed s : sealed) {
            versions.publishMemtables(s.family(), s.fresh(), immutables -> {
                List<Memtable> next = new ArrayList<>(immutables.size() + 1);
                next.add(s.memtable().memtable);
                next.addAll(immutables);
                return next;
            });
            s.fresh().release(); // the views hold it now
        }
        immutableCount++;
        CompletableFuture<Void> done = new CompletableFuture<>();
        pendingFlushes.add(done);
        done.whenComplete((ignored, error) -> pendingFlushes.remove(done));
        lastFlush = done;
        flushThread.execute(() -> flush(sealed, sealedLastSequence, newLogNumber, done));
    }

    /**
     * Runs on the flush thread, oldest rotation first: writes each sealed memtable to a level-0 table and
     * records, for every live family, its table and the new log number in one manifest sync. Families with
     * nothing sealed had nothing in the older logs, so their log number advances too.
     */
    private void flush(List<CommitPipeline.Sealed> sealed, long lastSequence, long newLogNumber,
                       CompletableFuture<Void> done) {
        if (closed) {
            // close() lets the running flush finish but no new one start; the logs keep this one's data.
            done.completeExceptionally(new IOException("database closed before this flush ran; the log keeps its data"));
            return;
        }
        try {
            if (pipeline.failure() != null) {
                throw new IOException("not flushing: the database failed earlier", pipeline.failure());
            }
            Map<Integer, CommitPipeline.Sealed> byFamily = new TreeMap<>();
            for (CommitPipeline.Sealed s : sealed) {
                s.memtable().awaitWritesApplied();
                byFamily.put(s.family(), s);
            }
            long started = flushTimer.start();
            List<VersionSet.Change> changes = new ArrayList<>();
            boolean wroteTable = false;
            for (int family : versions.columnFamilies().keySet()) {
                VersionEdit edit = new VersionEdit().columnFamily(family).logNumber(newLogNumber)
                        .lastSequence(lastSequence);
                CommitPipeline.Sealed s = byFamily.get(family);
                Family info = family(family);
                if (s == null || info == null) {
                    changes.add(new VersionSet.Change(edit, immutables -> immutables));
                    continue;
                }
                long number = versions.newFileNumber();
                TableMeta meta = MemtableFlush.write(fs, DbFiles.table(dir, number), number, s.memtable().memtable,
                        info.options().tableOptions(),
                        file -> new RateLimitedFile(file, compactions.rateLimiter(), flushBytes));
                if (meta != null) {
                    edit.add(0, meta);
                    wroteTable = true;
                }
                changes.add(new VersionSet.Change(edit, immutables -> {
                    List<Memtable> next = new ArrayList<>(immutables);
                    next.remove(s.memtable().memtable);
                    return next;
                }));
            }
            if (wroteTable) {
                // The tables' names must be durable before the manifest refers to them.
                fs.syncDirectory(dir);
            }
            // The old log's final fsync runs after the rotation; it must be done before the edit passes the log.
            pipeline.syncLogsBelow(newLogNumber);
            versions.logAndApply(changes);
            flushTimer.stop(started);
            long obsoleteBelow = versions.logNumber();
            reclaimer.submit(() -> deleteLogsBelow(obsoleteBelow));
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
        int[] worst = new int[2]; // immutable memtables, level-0 tables: the fullest family's
        versions.forEachView(view -> {
            worst[0] = Math.max(worst[0], view.immutables().size());
            worst[1] = Math.max(worst[1], view.version().level(0).size());
        });
        immutableCount = worst[0];
        level0Count = worst[1];
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

    // ---- column families

    private ColumnFamilyOptions familyOptions(int id) {
        Family f = family(id);
        return f == null ? null : f.options();
    }

    /** The live family with this id, or null. */
    private Family family(int id) {
        Family[] all = families;
        return id >= 0 && id < all.length ? all[id] : null;
    }

    /** The id of a handle this database handed out and that was not dropped. */
    private int familyId(ColumnFamily handle) {
        Objects.requireNonNull(handle, "family");
        if (handle.owner() != this) {
            throw new IllegalArgumentException(handle + " belongs to another database");
        }
        Family f = family(handle.id());
        if (f == null || f.handle() != handle) {
            throw new IllegalArgumentException(handle + " was dropped");
        }
        return handle.id();
    }

    @Override
    public ColumnFamily defaultColumnFamily() {
        return defaultFamily;
    }

    @Override
    public ColumnFamily createColumnFamily(String name, ColumnFamilyOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(options, "options");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a column family name must not be empty");
        }
        synchronized (familyLock) {
            checkOpen();
            Memtable memtable = new Memtable(CommitPipeline.memtableCapacity(options.writeBufferSize(), 0));
            try {
                // Durable first: the family's first write must find it in the manifest after a crash. Its log
                // number may lag behind a concurrent rotation; that only makes recovery read one more log.
                int id = versions.createColumnFamily(name, pipeline.currentLogNumber(), memtable);
                ColumnFamily handle = new ColumnFamily(this, id, name);
                Family[] next = java.util.Arrays.copyOf(families, Math.max(families.length, id + 1));
                next[id] = new Family(handle, options);
                families = next;
                pipeline.addFamily(id, memtable, options.writeBufferSize());
                return handle;
            } catch (IOException e) {
                backgroundFailed(e);
                throw new UncheckedIOException("creating column family " + name + " failed", e);
            } finally {
                memtable.release(); // the view holds it (or creation failed and nothing does)
            }
        }
    }

    @Override
    public void dropColumnFamily(ColumnFamily handle) {
        synchronized (familyLock) {
            checkOpen();
            int id = familyId(handle);
            if (id == VersionSet.DEFAULT_FAMILY) {
                throw new IllegalArgumentException("the default column family cannot be dropped");
            }
            // No new writes, and the ones assigned are in the memtable before its view goes.
            pipeline.removeFamily(id);
            Family[] next = families.clone();
            next[id] = null;
            families = next;
            try {
                versions.dropColumnFamily(id);
            } catch (IOException e) {
                backgroundFailed(e);
                throw new UncheckedIOException("dropping column family " + handle.name() + " failed", e);
            }
        }
    }

    @Override
    public Optional<ColumnFamily> columnFamily(String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        for (Family f : families) {
            if (f != null && f.handle().name().equals(name)) {
                return Optional.of(f.handle());
            }
        }
        return Optional.empty();
    }

    @Override
    public List<ColumnFamily> columnFamilies() {
        checkOpen();
        List<ColumnFamily> result = new ArrayList<>();
        for (Family f : families) {
            if (f != null) {
                result.add(f.handle());
            }
        }
        return result;
    }

    // ---- writes

    @Override
    public void put(byte[] key, byte[] value) {
        put(WriteOptions.DEFAULT, defaultFamily, key, value);
    }

    @Override
    public void put(WriteOptions options, byte[] key, byte[] value) {
        put(options, defaultFamily, key, value);
    }

    @Override
    public void put(WriteOptions options, MemorySegment key, MemorySegment value) {
        put(options, defaultFamily, key, value);
    }

    @Override
    public void put(ColumnFamily family, byte[] key, byte[] value) {
        put(WriteOptions.DEFAULT, family, key, value);
    }

    @Override
    public void put(WriteOptions options, ColumnFamily family, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        put(options, family, MemorySegment.ofArray(key), MemorySegment.ofArray(value));
    }

    @Override
    public void put(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment value) {
        Objects.requireNonNull(options, "options");
        BatchBuilder builder = new BatchBuilder();
        builder.add(ValueKind.PUT, familyId(family), Objects.requireNonNull(key, "key"),
                Objects.requireNonNull(value, "value"));
        commit(builder, options);
    }

    @Override
    public void delete(byte[] key) {
        delete(WriteOptions.DEFAULT, defaultFamily, key);
    }

    @Override
    public void delete(WriteOptions options, byte[] key) {
        delete(options, defaultFamily, key);
    }

    @Override
    public void delete(ColumnFamily family, byte[] key) {
        delete(WriteOptions.DEFAULT, family, key);
    }

    @Override
    public void delete(WriteOptions options, ColumnFamily family, byte[] key) {
        Objects.requireNonNull(options, "options");
        BatchBuilder builder = new BatchBuilder();
        builder.add(ValueKind.DELETE, familyId(family), MemorySegment.ofArray(Objects.requireNonNull(key, "key")),
                null);
        commit(builder, options);
    }

    @Override
    public void write(WriteBatch batch, WriteOptions options) {
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(options, "options");
        if (batch.owner() != null && batch.owner() != this) {
            throw new IllegalArgumentException("the batch uses column families of another database");
        }
        commit(batch.builder(), options);
    }

    private void commit(BatchBuilder builder, WriteOptions options) {
        checkOpen();
        stalls.beforeWrite(builder.byteSize(), options.noSlowdown());
        // The pipeline refuses families that were dropped (it checks under its lock, so no write slips in).
        pipeline.commit(builder.encode(), builder.count(), builder.payloadBytes(), options.sync(),
                builder.columnFamilies());
    }

    // ---- reads

    @Override
    public byte[] get(byte[] key) {
        return get(ReadOptions.DEFAULT, defaultFamily, key);
    }

    @Override
    public byte[] get(ReadOptions options, byte[] key) {
        return get(options, defaultFamily, key);
    }

    @Override
    public long get(ReadOptions options, MemorySegment key, MemorySegment destination) {
        return get(options, defaultFamily, key, destination);
    }

    @Override
    public byte[] get(ColumnFamily family, byte[] key) {
        return get(ReadOptions.DEFAULT, family, key);
    }

    @Override
    public byte[] get(ReadOptions options, ColumnFamily family, byte[] key) {
        Objects.requireNonNull(key, "key");
        if (options != null && options.mayBeIncomplete()) {
            throw new IllegalArgumentException("a memtable-only or cached-only read can be incomplete, which only "
                    + "get(ReadOptions, MemorySegment, MemorySegment) can report");
        }
        PointRead read = new PointRead(null);
        lookup(options, familyId(family), MemorySegment.ofArray(key), read);
        return read.array;
    }

    @Override
    public long get(ReadOptions options, ColumnFamily family, MemorySegment key, MemorySegment destination) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(destination, "destination");
        return lookup(options, familyId(family), key, new PointRead(destination));
    }

    /**
     * One point lookup's scratch and its way out: the result the sources fill in, and where the value is
     * copied while its memory is pinned (the destination segment, or a new array when there is none). One
     * small object per lookup instead of capturing lambdas and holder arrays.
     */
    private static final class PointRead {
        final LookupResult result = new LookupResult();
        final MemorySegment destination;
        byte[] array;

        PointRead(MemorySegment destination) {
            this.destination = destination;
        }

        /** Copies the found value out and returns its full length. */
        long take() {
            if (destination == null) {
                array = result.valueToArray();
                return array.length;
            }
            return result.copyValueTo(destination);
        }
    }

    /**
     * Finds the newest visible entry of {@code key}: memtables newest first, then level 0 newest first, then
     * one table per deeper level (unless the options say memtables only). Copies a value found through
     * {@code read} while its memory is still pinned.
     *
     * @return the value's length, -1 for an absent or deleted key, or {@link ReadOptions#INCOMPLETE} when a
     *     memtable-only read reaches the tables
     */
    private long lookup(ReadOptions options, int family, MemorySegment key, PointRead read) {
        ReadView view = pinView(family);
        try {
            long sequence = readSequence(options);
            LookupResult result = read.result;
            // mutable() and immutables() rather than memtablesNewestFirst(), which copies into a new list.
            if (view.mutable().get(key, sequence, result)) {
                return result.status() == LookupResult.Status.FOUND ? read.take() : -1;
            }
            List<Memtable> immutables = view.immutables();
            for (int i = 0; i < immutables.size(); i++) {
                if (immutables.get(i).get(key, sequence, result)) {
                    return result.status() == LookupResult.Status.FOUND ? read.take() : -1;
                }
            }
            if (options != null && options.memtableOnly()) {
                return ReadOptions.INCOMPLETE;
            }
            boolean cachedOnly = options != null && options.cachedOnly();
            Version version = view.version();
            List<TableMeta> level0 = version.level(0);
            for (int i = 0; i < level0.size(); i++) {
                TableMeta table = level0.get(i);
                if (table.covers(key)) {
                    long found = lookupTable(table, key, sequence, read, cachedOnly);
                    if (found != NOT_IN_TABLE) {
                        return found;
                    }
                }
            }
            for (int level = 1; level < Version.NUM_LEVELS; level++) {
                TableMeta table = version.findInSortedLevel(level, key);
                if (table != null) {
                    long found = lookupTable(table, key, sequence, read, cachedOnly);
                    if (found != NOT_IN_TABLE) {
                        return found;
                    }
                }
            }
            return -1;
        } finally {
            view.release();
        }
    }

    /** {@link #lookupTable}'s answer when the table does not decide the key. */
    private static final long NOT_IN_TABLE = Long.MIN_VALUE;

    /**
     * The value's length (copied out), -1 for a tombstone, {@link #NOT_IN_TABLE}, or (cached-only) {@link
     * ReadOptions#INCOMPLETE} when the table is not open or the block needed is not in the block cache.
     */
    private long lookupTable(TableMeta table, MemorySegment key, long sequence, PointRead read,
                             boolean cachedOnly) {
        // A cached-only lookup uses only tables already open: opening one reads the file.
        TableReader reader = cachedOnly ? tableCache.acquireIfOpen(table) : tableCache.acquire(table);
        if (reader == null) {
            return ReadOptions.INCOMPLETE;
        }
        try {
            if (cachedOnly) {
                if (!reader.getCached(key, sequence, read.result)) {
                    return ReadOptions.INCOMPLETE;
                }
            } else {
                reader.get(key, sequence, read.result);
            }
            return switch (read.result.status()) {
                case FOUND -> read.take();
                case DELETED -> -1;
                case NOT_FOUND -> NOT_IN_TABLE;
            };
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
        return iterator(ReadOptions.DEFAULT, defaultFamily);
    }

    @Override
    public DbIterator iterator(ReadOptions options) {
        return iterator(options, defaultFamily);
    }

    @Override
    public DbIterator iterator(ReadOptions options, ColumnFamily family) {
        Objects.requireNonNull(options, "options");
        if (options.mayBeIncomplete()) {
            throw new IllegalArgumentException("memtable-only and cached-only reads are point lookups; iterators "
                    + "read everything");
        }
        ReadView view = pinView(familyId(family));
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

    private ReadView pinView(int family) {
        checkOpen();
        return versions.acquire(family);
    }

    void iteratorClosed(DbIteratorImpl iterator) {
        openIterators.remove(iterator);
    }

    // ---- ingestion

    @Override
    public void ingestExternalFiles(ColumnFamily family, List<Path> files,
                                    io.varve.core.ingest.IngestOptions options) throws IOException {
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(options, "options");
        checkOpen();
        int id = familyId(family);
        ingestion.ingest(id, family.name(), List.copyOf(files), options);
    }

    @Override
    public io.varve.core.ingest.RangeLatch rangeLatch() {
        return rangeLatch;
    }

    // ---- maintenance

    @Override
    public void syncWal() {
        checkOpen();
        pipeline.syncLog();
    }

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
        compactRange(defaultFamily, begin, end);
    }

    @Override
    public void compactRange(ColumnFamily family, byte[] begin, byte[] end) {
        checkOpen();
        int id = familyId(family);
        if (begin != null && end != null && Keys.compare(begin, end) > 0) {
            throw new IllegalArgumentException("compactRange: begin sorts after end");
        }
        flush();
        try {
            compactions.compactRange(id, begin, end);
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

    /** Everything the meters publish, for tests and benchmarks. */
    DbStatistics statistics() {
        return statistics;
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

    /** For tests: waits until the pipeline's log worker has run everything queued so far. */
    void awaitLogWorker() throws InterruptedException {
        pipeline.awaitLogWorker();
    }

    /** For tests: rotations that found no spare log ready and created the next log while writers waited. */
    long logsCreatedInline() {
        return pipeline.logsCreatedInline();
    }

    /** For tests: the current version (retained; release it). */
    Version currentVersion() {
        return versions.currentVersion();
    }

    /** For tests: a family's current version (retained; release it). */
    Version currentVersion(ColumnFamily family) {
        return versions.currentVersion(familyId(family));
    }

    /** For tests: the newest sequence reads see. */
    /** The last sequence number handed out, visible or not: a write has it once it is in the log buffer. */
    long lastAllocatedSequence() {
        return pipeline.lastAllocatedSequence();
    }

    long visibleSequence() {
        return pipeline.visibleSequence();
    }

    /**
     * For tests: every entry a family stores, in memtables and tables of one read view, every version of
     * every key, unmerged: the user key and the sequence a read sees it at.
     */
    void forEachStoredEntry(ColumnFamily family, java.util.function.ObjLongConsumer<byte[]> sink) {
        ReadView view = pinView(familyId(family));
        try {
            List<InternalIterator> sources = new ArrayList<>();
            try {
                for (Memtable memtable : view.memtablesNewestFirst()) {
                    sources.add(memtable.iterator());
                }
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (TableMeta table : view.version().level(level)) {
                        TableReader reader = tableCache.acquire(table);
                        try {
                            sources.add(reader.newIterator());
                        } finally {
                            reader.release();
                        }
                    }
                }
                for (InternalIterator it : sources) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        sink.accept(Keys.toArray(it.userKey()), io.varve.core.base.InternalKey.sequence(it.trailer()));
                    }
                }
            } finally {
                sources.forEach(InternalIterator::close);
            }
        } finally {
            view.release();
        }
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
        statistics.close();
        List<Exception> failures = new ArrayList<>();
        try {
            pipeline.close();
        } catch (IOException | RuntimeException e) {
            failures.add(e);
        }
        // Let a running flush finish (its table is then in the manifest); queued ones see `closed` and end at
        // once, the log has their data. Never interrupt the flush: an interrupt during a FileChannel write or
        // force closes the channel, and the manifest's channel with it.
        flushThread.shutdown();
        try {
            if (!flushThread.awaitTermination(1, TimeUnit.MINUTES)) {
                failures.add(new IOException("flush thread did not stop within a minute"));
                flushThread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            flushThread.shutdownNow();
        }
        // Flushes dropped from the queue never run: release whoever waits in flush() for them.
        for (CompletableFuture<Void> dropped : List.copyOf(pendingFlushes)) {
            dropped.completeExceptionally(new IOException("database closed before this flush ran; the log keeps its data"));
        }
        compactions.close();
        ingestion.close();
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
