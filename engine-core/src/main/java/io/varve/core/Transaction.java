package io.varve.core;

import io.varve.base.concurrent.LockStripes;
import io.varve.core.internal.ColumnFamilies;
import io.varve.core.internal.DbImpl;
import io.varve.core.internal.txn.Bytes;
import io.varve.core.internal.txn.KeyLocks;
import io.varve.core.txn.TransactionConflictException;
import io.varve.core.txn.TransactionOptions;

import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A group of reads and writes committed atomically, from {@link Db#beginTransaction}. Writes go to a
 * {@link WriteBatchWithIndex}, so the transaction reads its own writes; nothing reaches the database before
 * {@link #commit()}, which writes them as one batch. See {@link TransactionOptions} for the two kinds.
 *
 * <h2>Concurrency control</h2>
 * <ul>
 *   <li><b>Optimistic</b>: reads see the snapshot taken at begin. Every key read with
 *       {@link #getForUpdate} or written is tracked. Commit takes the {@link LockStripes stripes} of the tracked keys (a
 *       fixed set of locks, taken in index order so commits never deadlock, held only while the commit
 *       validates and writes, never while the transaction runs), checks that no tracked key has an entry
 *       newer than the snapshot, and writes. A commit that finds one writes nothing and throws
 *       {@link TransactionConflictException}.</li>
 *   <li><b>Pessimistic</b>: {@link #getForUpdate} and writes lock the key first ({@link KeyLocks}: timeout
 *       and deadlock detection); reads see the latest committed state. Commit writes and releases the
 *       locks.</li>
 * </ul>
 * Both kinds control concurrency among transactions. A plain {@code Db.put} takes no lock: an optimistic
 * transaction still sees it as a conflict if it landed before the commit's check, a pessimistic one does not
 * see it at all; use transactions for every write to keys that transactions guard.
 *
 * <p>Not thread-safe: one thread at a time. Closing an open transaction rolls it back. After the database
 * closes, commit throws the closed-state {@link IllegalStateException}.
 */
public final class Transaction implements AutoCloseable {

    private static final AtomicLong IDS = new AtomicLong();

    private enum State { OPEN, COMMITTED, ROLLED_BACK }

    private final DbImpl db;
    private final WriteOptions writeOptions;
    private final TransactionOptions options;
    private final long id = IDS.incrementAndGet();
    /** Optimistic only: the view reads see, and the point after which a tracked key must be unchanged. */
    private final Snapshot snapshot;
    /** What reads pass down: at the snapshot (optimistic) or at the latest state (pessimistic). */
    private final ReadOptions readOptions;
    private final WriteBatchWithIndex writes = new WriteBatchWithIndex();
    /** Keys read for update or written: validated at commit (optimistic) or locked (pessimistic). */
    private final Set<KeyLocks.LockKey> tracked = new LinkedHashSet<>();
    private State state = State.OPEN;

    Transaction(DbImpl db, WriteOptions writeOptions, TransactionOptions options) {
        this.db = db;
        this.writeOptions = Objects.requireNonNull(writeOptions, "writeOptions");
        this.options = Objects.requireNonNull(options, "options");
        this.snapshot = options.isPessimistic() ? null : db.snapshot();
        this.readOptions = snapshot == null ? ReadOptions.DEFAULT : ReadOptions.at(snapshot);
    }

    public byte[] get(byte[] key) {
        return get(db.defaultColumnFamily(), key);
    }

    /** The key's value with this transaction's writes applied over its read view. */
    public byte[] get(ColumnFamily family, byte[] key) {
        requireOpen();
        return writes.get(db, readOptions, family, key);
    }

    public byte[] getForUpdate(byte[] key) {
        return getForUpdate(db.defaultColumnFamily(), key);
    }

    /**
     * Like {@link #get}, and guards the key: an optimistic commit fails if someone else writes it after the
     * snapshot; a pessimistic transaction locks it until it ends.
     */
    public byte[] getForUpdate(ColumnFamily family, byte[] key) {
        requireOpen();
        track(family, key);
        return writes.get(db, readOptions, family, key);
    }

    public void put(byte[] key, byte[] value) {
        put(db.defaultColumnFamily(), key, value);
    }

    public void put(ColumnFamily family, byte[] key, byte[] value) {
        requireOpen();
        track(family, key);
        writes.put(family, key, value);
    }

    public void delete(byte[] key) {
        delete(db.defaultColumnFamily(), key);
    }

    public void delete(ColumnFamily family, byte[] key) {
        requireOpen();
        track(family, key);
        writes.delete(family, key);
    }

    public void merge(byte[] key, byte[] operand) {
        merge(db.defaultColumnFamily(), key, operand);
    }

    /**
     * Records a merge operand for {@code key}; this transaction's reads apply it over what they see. Like
     * RocksDB, a merge is a write, not a read: it guards the key as a put does (an optimistic commit fails if
     * someone else wrote the key after the snapshot; a pessimistic transaction locks it).
     *
     * @throws IllegalStateException if the family has no merge operator
     */
    public void merge(ColumnFamily family, byte[] key, byte[] operand) {
        requireOpen();
        if (family.owner() instanceof ColumnFamilies registry) {
            registry.requireMergeOperator(db.familyIdOf(family));
        }
        track(family, key);
        writes.merge(family, key, operand);
    }

    /** An iterator over {@code family} with this transaction's writes laid over its read view. */
    public DbIterator iterator(ReadOptions options, ColumnFamily family) {
        requireOpen();
        ReadOptions read = snapshot == null ? options : options.withSnapshot(snapshot);
        return writes.iterator(db, read, family);
    }

    /**
     * Writes the transaction's writes as one batch.
     *
     * @throws TransactionConflictException (optimistic) a tracked key changed after the snapshot; nothing
     *                                      was written and the transaction is rolled back
     */
    public void commit() {
        requireOpen();
        try {
            if (options.isPessimistic()) {
                write();
            } else {
                int[] hashes = tracked.stream().mapToInt(KeyLocks.LockKey::hashCode).toArray();
                try (LockStripes.Held held = db.transactionStripes().lockAllHashes(hashes)) {
                    validate();
                    write();
                }
            }
            state = State.COMMITTED;
        } finally {
            if (state != State.COMMITTED) {
                state = State.ROLLED_BACK;
            }
            release();
        }
    }

    /** Discards the writes and releases what the transaction holds. */
    public void rollback() {
        if (state == State.OPEN) {
            state = State.ROLLED_BACK;
            release();
        }
    }

    @Override
    public void close() {
        rollback();
    }

    /** A number unique within this process, increasing in the order transactions began. */
    public long id() {
        return id;
    }

    @Override
    public String toString() {
        return "transaction " + id;
    }

    private void validate() {
        long since = snapshot.sequence();
        for (KeyLocks.LockKey key : tracked) {
            if (db.newestSequence(key.family(), key.key().bytes(), since) > since) {
                throw new TransactionConflictException(this + ": " + key + " was written after its snapshot ("
                        + since + ")");
            }
        }
    }

    private void write() {
        if (writes.count() > 0) {
            db.write(writes.writeBatch(), writeOptions);
        }
    }

    private void track(ColumnFamily family, byte[] key) {
        KeyLocks.LockKey lockKey = new KeyLocks.LockKey(db.familyIdOf(family), Bytes.copyOf(key));
        if (options.isPessimistic() && !tracked.contains(lockKey)) {
            db.keyLocks().lock(this, lockKey, options.lockTimeout().toNanos());
        }
        tracked.add(lockKey);
    }

    private void release() {
        if (options.isPessimistic()) {
            db.keyLocks().unlockAll(this, tracked);
        } else {
            snapshot.close();
        }
        tracked.clear();
        writes.clear();
    }

    private void requireOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException(this + " is " + state.name().toLowerCase().replace('_', ' '));
        }
    }
}
