package io.varve.core;

import io.varve.core.base.InternalIterator;
import io.varve.core.base.InternalKey;
import io.varve.core.base.Keys;
import io.varve.core.base.ValueKind;
import io.varve.core.batch.BatchBuilder;
import io.varve.core.fs.FileSystem;
import io.varve.core.iterator.MergingIterator;
import io.varve.core.memtable.LookupResult;
import io.varve.core.memtable.Memtable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database: owns the directory lock, the commit pipeline, the current read view and the open iterators
 * and snapshots. Reads pin a {@link ReadView} and only then take the sequence they read at, so the view
 * always holds every write that sequence covers.
 */
final class DbImpl implements Db {

    private static final System.Logger LOG = System.getLogger(DbImpl.class.getName());

    private final Path dir;
    private final FileSystem fs;
    private final FileSystem.FileLock lock;
    private final CommitPipeline pipeline;
    private final AtomicLong nextFileNumber;
    private final SnapshotList snapshots = new SnapshotList();
    private final Set<DbIteratorImpl> openIterators = ConcurrentHashMap.newKeySet();

    /** Replaced under the pipeline's log lock (the only writer); read lock-free by readers. */
    private volatile ReadView view;
    private volatile boolean closed;

    private DbImpl(Path dir, FileSystem fs, FileSystem.FileLock lock, Options options, WalReplay.Result recovered)
            throws IOException {
        this.dir = dir;
        this.fs = fs;
        this.lock = lock;
        this.nextFileNumber = new AtomicLong(recovered.maxLogNumber() + 1);
        List<Memtable> immutables = new ArrayList<>(recovered.sealed());
        java.util.Collections.reverse(immutables);
        this.view = new ReadView(recovered.last(), immutables);
        // The view now holds its own references; drop the ones recovery handed us.
        recovered.last().release();
        recovered.sealed().forEach(Memtable::release);
        this.pipeline = new CommitPipeline(fs, dir, options, nextFileNumber::getAndIncrement,
                recovered.lastSequence(), recovered.last(), recovered.lastCapacity(), recovered.lastReserved(),
                nextFileNumber.getAndIncrement(), this::memtableRotated);
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
        WalReplay.Result recovered = null;
        try {
            for (String name : fs.list(dir)) {
                if (name.endsWith(".tmp")) {
                    fs.delete(dir.resolve(name));
                }
            }
            recovered = new WalReplay(fs, dir, options).run();
            DbImpl db = new DbImpl(dir, fs, lock, options, recovered);
            LOG.log(System.Logger.Level.INFO, "opened {0} at sequence {1}", dir, recovered.lastSequence());
            return db;
        } catch (IOException | RuntimeException e) {
            try {
                lock.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void memtableRotated(Memtable sealed, long sealedLastSequence, Memtable fresh, long newLogNumber) {
        ReadView old = view;
        List<Memtable> immutables = new ArrayList<>(old.immutables.size() + 1);
        immutables.add(sealed);
        immutables.addAll(old.immutables);
        view = new ReadView(fresh, immutables);
        // The pipeline created `fresh` with one reference of its own; the view took another.
        fresh.release();
        old.release();
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
        ReadView pinned = pinView();
        try {
            MemorySegment value = lookup(pinned, options, MemorySegment.ofArray(key));
            return value == null ? null : Keys.toArray(value);
        } finally {
            pinned.release();
        }
    }

    @Override
    public long get(ReadOptions options, MemorySegment key, MemorySegment destination) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(destination, "destination");
        ReadView pinned = pinView();
        try {
            MemorySegment value = lookup(pinned, options, key);
            if (value == null) {
                return -1;
            }
            long n = Math.min(value.byteSize(), destination.byteSize());
            MemorySegment.copy(value, 0, destination, 0, n);
            return value.byteSize();
        } finally {
            pinned.release();
        }
    }

    /** The value of {@code key} as a view into the pinned memtables, or null. */
    private MemorySegment lookup(ReadView pinned, ReadOptions options, MemorySegment key) {
        long sequence = readSequence(options);
        LookupResult result = new LookupResult();
        for (Memtable memtable : pinned.memtablesNewestFirst()) {
            if (memtable.get(key, sequence, result)) {
                return result.status() == LookupResult.Status.FOUND ? result.value() : null;
            }
        }
        return null;
    }

    @Override
    public Snapshot snapshot() {
        checkOpen();
        // Pinning is not needed for a sequence alone: memtables are only dropped once flushed to tables.
        return snapshots.take(pipeline.visibleSequence());
    }

    @Override
    public DbIterator iterator() {
        return iterator(ReadOptions.DEFAULT);
    }

    @Override
    public DbIterator iterator(ReadOptions options) {
        Objects.requireNonNull(options, "options");
        ReadView pinned = pinView();
        DbIteratorImpl iterator;
        try {
            long sequence = readSequence(options);
            List<InternalIterator> children = new ArrayList<>();
            for (Memtable memtable : pinned.memtablesNewestFirst()) {
                children.add(memtable.iterator());
            }
            iterator = new DbIteratorImpl(this, pinned, new MergingIterator(children), sequence,
                    options.lowerBoundUnsafe(), options.upperBoundUnsafe());
        } catch (RuntimeException e) {
            pinned.release();
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

    /** Pins the current view; a view whose count already reached zero was just replaced, so re-read. */
    private ReadView pinView() {
        while (true) {
            checkOpen();
            ReadView current = view;
            if (current.tryRetain()) {
                return current;
            }
        }
    }

    void iteratorClosed(DbIteratorImpl iterator) {
        openIterators.remove(iterator);
    }

    // ---- maintenance

    @Override
    public void flush() {
        checkOpen();
        // Until tables exist, persisting the memtables means syncing the log that holds them.
        pipeline.syncLog();
    }

    @Override
    public void compactRange(byte[] begin, byte[] end) {
        checkOpen();
        if (begin != null && end != null && Keys.compare(begin, end) > 0) {
            throw new IllegalArgumentException("compactRange: begin sorts after end");
        }
        // Nothing to compact until tables exist: all data is in memtables.
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

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        IOException failure = null;
        try {
            pipeline.close();
        } catch (IOException e) {
            failure = e;
        }
        for (DbIteratorImpl iterator : List.copyOf(openIterators)) {
            iterator.close();
        }
        snapshots.closeAll();
        view.release();
        try {
            lock.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw new UncheckedIOException("closing " + dir + " failed", failure);
        }
    }
}
