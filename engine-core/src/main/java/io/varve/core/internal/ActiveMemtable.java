package io.varve.core.internal;

import io.varve.core.internal.memtable.Memtable;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A column family's memtable while the commit pipeline assigns writes to it, plus the room promised to writes
 * still inserting into it: admission ({@link #fits}) needs that bound, and a flush waits until it drops to
 * zero, i.e. every write assigned to a sealed memtable is in it.
 *
 * <p>Threading: {@link #fits}, {@link #assign}, {@link #isEmpty} and {@link #seal} run under the pipeline's
 * {@code logLock}; {@link #finishedApplying} runs on any writer after its inserts, without a lock.
 */
public final class ActiveMemtable {

    final int family;
    final Memtable memtable;
    final long capacity;
    final long writeBufferSize;
    /** Guarded by logLock: bytes ever promised to writes assigned here (0: none assigned). */
    private long reserved;
    /**
     * Worst-case bytes of writes assigned and not yet done inserting. Raised under logLock only, lowered by
     * each write once all its inserts are done; every write reserves more than zero bytes, so zero means no
     * write is applying.
     */
    private final AtomicLong unapplied = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private volatile boolean sealed;

    ActiveMemtable(int family, Memtable memtable, long capacity, long writeBufferSize) {
        this.family = family;
        this.memtable = memtable;
        this.capacity = capacity;
        this.writeBufferSize = writeBufferSize;
    }

    /**
     * Whether a write whose bound is {@code reserve} ({@link MemtableSet#reserve}) may be assigned here.
     * Caller holds logLock.
     *
     * <p>Why the arena never runs out. Let A be the arena's allocated bytes and, for each write assigned here
     * and not done inserting, r its reserve and a what it has allocated so far; a &lt;= r, since each of its
     * nodes here takes at most its key and value bytes plus {@link MemtableSet#ENTRY_OVERHEAD}. Claim:
     * I = A + sum(r - a) &lt;= capacity at all times. An allocation raises A and that write's a by the same
     * amount; a write finishing drops its r - a &gt;= 0; so between assignments I never grows. Assignments
     * happen only after this check, under logLock: {@code unapplied} (U, the sum of r) is read first and A
     * after, so every write in flight when A is read was already counted in U (none can join meanwhile, and
     * one that left U in between had allocated everything before leaving), giving I &lt;= A + U; assigning
     * only when A + U + reserve &lt;= capacity keeps the claim. As every r - a &gt;= 0, A &lt;= I &lt;=
     * capacity, so every allocation finds room. Unlike charging each write its bound for good, A counts
     * inserted nodes at their real size, so a memtable fills to within one batch bound (times the writers in
     * flight) of its capacity.
     */
    boolean fits(long reserve) {
        long inFlight = unapplied.get();
        long used = memtable.approximateMemoryUsage();
        return used + inFlight + reserve <= capacity;
    }

    /** Promises {@code reserve} bytes to a write. Caller holds logLock and checked {@link #fits}. */
    void assign(long reserve) {
        reserved += reserve;
        unapplied.addAndGet(reserve);
    }

    /** Whether no write was ever assigned here. Caller holds logLock. */
    boolean isEmpty() {
        return reserved == 0;
    }

    /** Marks the memtable as taking no more writes, so the last write to finish wakes a waiting flush. */
    void seal() {
        sealed = true;
    }

    /** Called once by each write after all its inserts here, with the bound it was assigned with. */
    void finishedApplying(long reserve) {
        if (unapplied.addAndGet(-reserve) == 0 && sealed) {
            lock.lock();
            try {
                idle.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Blocks until no write is inserting into this (sealed) memtable. */
    void awaitWritesApplied() {
        lock.lock();
        try {
            while (unapplied.get() > 0) {
                idle.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }
}
