package io.varve.core.mvcc;

import io.varve.core.ColumnFamily;
import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.internal.keys.Keys;
import io.varve.core.ingest.RangeLatch;
import io.varve.core.compaction.CompactionFilter;
import io.varve.core.compaction.filters.MvccGcFilter;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs TiKV-style MVCC garbage collection on a database laid out as in
 * {@link io.varve.core.compaction.filters.MvccKeys}: the write family's compactions drop versions older than
 * the safe point ({@link MvccGcFilter}), and this class deletes the values those versions pointed to, with
 * ordinary batched writes on its own thread — compaction threads only queue the keys. Each batch of deletes
 * holds the database's {@link RangeLatch} over its keys, so it never races an ingestion with {@code allowWrite}.
 *
 * <p>Use: create it, pass {@link #writeFamilyFilter()} as the write family's compaction filter, open the
 * database, then {@link #start} with the database and the values family. Raise {@link #setSafePoint} as
 * transactions finish. A crash may lose queued deletes; the values they name are then unreachable garbage
 * (no write record points to them) — the same trade TiKV makes, where a later full scan can collect them.
 *
 * <p>Threading: one daemon thread, owned by this object and stopped by {@link #close()}, which first writes
 * what is queued.
 */
public final class MvccGarbageCollector implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(MvccGarbageCollector.class.getName());
    private static final int BATCH = 256;

    private volatile long safePoint;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Guarded by lock. */
    private final List<byte[]> queue = new ArrayList<>();
    private long queued;
    private long written;
    private boolean closed;
    private Thread thread;
    private Db db;
    private ColumnFamily values;
    private volatile Throwable failure;

    /** The filter to install on the write family. */
    public CompactionFilter writeFamilyFilter() {
        return new MvccGcFilter(() -> safePoint, this::enqueue);
    }

    /** Versions committed at or before this timestamp may be collected, except each key's newest such version. */
    public void setSafePoint(long timestamp) {
        if (timestamp < safePoint) {
            throw new IllegalArgumentException("the safe point only moves forward: " + timestamp + " < " + safePoint);
        }
        safePoint = timestamp;
    }

    public long safePoint() {
        return safePoint;
    }

    /** Starts deleting obsolete values from {@code valuesFamily} of {@code db}. */
    public void start(Db db, ColumnFamily valuesFamily) {
        lock.lock();
        try {
            if (thread != null) {
                throw new IllegalStateException("already started");
            }
            this.db = Objects.requireNonNull(db, "db");
            this.values = Objects.requireNonNull(valuesFamily, "valuesFamily");
            thread = Thread.ofPlatform().daemon().name("varve-mvcc-gc").start(this::run);
        } finally {
            lock.unlock();
        }
    }

    private void enqueue(byte[] valueKey) {
        lock.lock();
        try {
            queue.add(valueKey);
            queued++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (true) {
            List<byte[]> batch;
            lock.lock();
            try {
                while (queue.isEmpty() && !closed) {
                    changed.awaitUninterruptibly();
                }
                if (queue.isEmpty()) {
                    return;
                }
                int n = Math.min(BATCH, queue.size());
                batch = new ArrayList<>(queue.subList(0, n));
                queue.subList(0, n).clear();
            } finally {
                lock.unlock();
            }
            byte[] first = batch.getFirst();
            byte[] last = first;
            for (byte[] key : batch) {
                first = Keys.compare(key, first) < 0 ? key : first;
                last = Keys.compare(key, last) > 0 ? key : last;
            }
            // An ingestion with allowWrite holds the latch over its files' keys and relies on nobody writing
            // there meanwhile: clean-up writes wait for it like any writer of that protocol.
            try (RangeLatch.Guard held = db.rangeLatch().acquire(first, last)) {
                WriteBatch deletes = new WriteBatch();
                batch.forEach(key -> deletes.delete(values, key));
                db.write(deletes, WriteOptions.DEFAULT);
            } catch (RuntimeException e) {
                failure = e;
                LOG.log(System.Logger.Level.WARNING, "MVCC GC could not delete obsolete values; stopping", e);
                lock.lock();
                try {
                    closed = true;
                    queue.clear();
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
                return;
            }
            lock.lock();
            try {
                written += batch.size();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Waits until every value key queued so far is deleted (or GC stopped on a failure). */
    public void awaitDeletes() {
        lock.lock();
        try {
            long target = queued;
            while (written < target && !closed) {
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Values deleted so far. */
    public long deletedValues() {
        lock.lock();
        try {
            return written;
        } finally {
            lock.unlock();
        }
    }

    /** The failure that stopped collection, or null. */
    public Throwable failure() {
        return failure;
    }

    /** Writes what is queued, then stops the thread. Call before closing the database. */
    @Override
    public void close() {
        Thread t;
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
            t = thread;
        } finally {
            lock.unlock();
        }
        if (t != null) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
