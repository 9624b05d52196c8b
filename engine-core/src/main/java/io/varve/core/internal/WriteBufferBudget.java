package io.varve.core.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One memtable budget for several databases of a process (RocksDB's {@code WriteBufferManager} with
 * {@code allow_stall}): the memtable bytes of every member database count against one figure, and when that
 * fills, the database with the largest mutable memtables is made to flush, and writers stall until flushes
 * bring the total back under the budget.
 *
 * <h2>What is counted</h2>
 * Each member counts the bytes its memtables have allocated (mutable and immutable, every column family):
 * what is resident of a memtable whose arena is mapped lazily (docs/memtable.md, "Memory"). A member
 * measures itself ({@link Member#refresh()}) after each of its writes and after each flush, compaction or
 * failure, and publishes the difference to the totals; between measurements its figures are the last ones.
 * A memtable leaves the count when the flush that wrote it is installed (a reader may keep it a little longer).
 * A database that failed counts nothing: its memtables will never be flushed, and the budget must not wait for
 * them (they are freed when it closes).
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li><b>Flush</b> when the mutable bytes reach 7/8 of the budget, or the total reaches the budget while
 *       mutable bytes are at least half of it (RocksDB's rule): the member with the largest mutable bytes
 *       seals its memtables and its flusher writes them out. The thread that noticed (a writer, of any
 *       member) does the sealing, holding none of its own database's locks; one thread at a time (the
 *       {@code sealing} flag). A thread that finds the rule met while another is sealing raises
 *       {@code flushWanted} and goes on; the sealer re-applies the rule, to the state of that moment or later,
 *       before it returns.</li>
 *   <li><b>Stall</b>: a write that finds the total at or above the budget waits (or, with
 *       {@code noSlowdown}, fails) until the total is back under it. Checked before the write enters its
 *       database's commit pipeline, holding no lock.</li>
 * </ul>
 * So the total exceeds the budget by at most what writers admitted while it was under the budget add before
 * they measure: one batch per writer in flight.
 *
 * <h2>Why a stalled writer always wakes</h2>
 * A writer waits only while the total is at or above the budget. Then either the mutable bytes are at least
 * half the budget, and the flush rule was applied after the waiter saw that (the waiter applies it before each
 * wait, and every writer after each of its measurements), so a flush was started, or more than half the
 * budget is in immutable memtables, each of which has a flush scheduled on its database's flush thread; flush
 * threads never wait for the budget. Each flush ends in a measurement that lowers the total and signals; so
 * does a member's failure (its count drops to zero) and its close (its count leaves). The waiter re-checks
 * after every signal.
 *
 * <p>Two handshakes rule out lost wake-ups, each between two volatile writes that are read the other way round,
 * so that at least one side sees the other's write:
 * <ul>
 *   <li>{@code waiters}: a waiter raises it before reading the total; a measurement changes the total before
 *       reading it (and signals if it is raised).</li>
 *   <li>{@code flushWanted}: a thread that finds the rule met raises it before trying {@code sealing}; the
 *       sealer clears it before reading the totals, and after letting go of {@code sealing} reads it again.
 *       So a request made while another thread seals is either seen by that sealer's reading of the totals or
 *       left raised for its next round (or for whichever thread takes {@code sealing} first, which applies the
 *       rule after the request). Without it, a sealer asked for an older state could let go after its flush had
 *       already ended, with every writer waiting for a budget full of mutable memtables and no thread left to
 *       apply the rule.</li>
 * </ul>
 *
 * <p>Locks: {@link #lock} (waiting writers) and each member's {@code refreshLock} are leaves; sealing a
 * member's memtables takes that database's log lock, with neither held.
 */
public final class WriteBufferBudget {

    /** How a member database measures and flushes itself. */
    public interface Source {
        /**
         * Allocated bytes of the mutable memtables (index 0) and of all memtables (index 1), written into
         * {@code into}; false if the database is closing and cannot be measured.
         */
        boolean measure(long[] into);

        /** Whether the database failed (it then refuses writes and never flushes). */
        boolean failed();

        /** Seals the mutable memtables so that they are flushed; does not wait. May throw if closed or failed. */
        void requestFlush();
    }

    private final long budget;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong mutable = new AtomicLong();
    private final Set<Member> members = ConcurrentHashMap.newKeySet();
    /** Held by the one thread applying the flush rule. */
    private final AtomicBoolean sealing = new AtomicBoolean();
    /** Set by a thread that found the rule met; cleared by the sealer just before it applies the rule. */
    private final AtomicBoolean flushWanted = new AtomicBoolean();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile int waiters;
    private final LongAdder stalls = new LongAdder();
    private final LongAdder flushes = new LongAdder();

    public WriteBufferBudget(long budgetBytes) {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("a write buffer budget must be positive: " + budgetBytes);
        }
        this.budget = budgetBytes;
    }

    /** Adds a database; it counts from its first {@link Member#refresh()}. */
    public Member join(Source source) {
        Member member = new Member(source);
        members.add(member);
        return member;
    }

    public long budgetBytes() {
        return budget;
    }

    /** Memtable bytes of all members as last measured. */
    public long usedBytes() {
        return total.get();
    }

    /** Mutable-memtable bytes of all members as last measured. */
    public long mutableBytes() {
        return mutable.get();
    }

    /** Writes that had to wait for the budget. */
    public long stallCount() {
        return stalls.sum();
    }

    /** Flushes the budget asked a member for. */
    public long flushCount() {
        return flushes.sum();
    }

    public int memberCount() {
        return members.size();
    }

    /**
     * Applies the flush rule: seals the largest member's memtables if the budget is filling. If another thread
     * is applying it, leaves the request to that thread, which re-applies the rule before it returns.
     */
    void maybeFlush() {
        if (!flushRuleMet()) {
            return;
        }
        flushWanted.set(true);
        while (flushWanted.get() && sealing.compareAndSet(false, true)) {
            try {
                flushWanted.set(false);
                if (flushRuleMet()) {
                    sealLargest();
                }
            } finally {
                sealing.set(false);
            }
        }
    }

    private boolean flushRuleMet() {
        long m = mutable.get();
        return m >= budget - budget / 8 || (total.get() >= budget && m >= budget / 2);
    }

    private void sealLargest() {
        Member largest = null;
        for (Member member : members) {
            if (largest == null || member.mutableBytes > largest.mutableBytes) {
                largest = member;
            }
        }
        if (largest == null || largest.mutableBytes == 0) {
            return;
        }
        flushes.increment();
        try {
            largest.source.requestFlush();
        } catch (RuntimeException closedOrFailed) {
            // Its close or failure takes it out of the count and signals waiters.
        }
        largest.refresh();
    }

    private void signalWaiters() {
        if (waiters > 0) {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** One database's share of the budget. */
    public final class Member implements AutoCloseable {

        private final Source source;
        private final ReentrantLock refreshLock = new ReentrantLock();
        private final long[] measured = new long[2];
        // Written under refreshLock; volatile for the flush rule's unlocked choice of the largest member.
        private volatile long mutableBytes;
        private volatile long allBytes;
        private volatile boolean closed;

        private Member(Source source) {
            this.source = source;
        }

        /**
         * Before a write of this member: waits while the budget is full (or, with {@code noSlowdown}, returns
         * false instead). Returns true at once once this member is closed or failed: its own pipeline then
         * refuses the write.
         */
        public boolean beforeWrite(boolean noSlowdown) {
            if (total.get() < budget) {
                return true;
            }
            maybeFlush();
            if (total.get() < budget || closed) {
                return true;
            }
            if (noSlowdown) {
                return false;
            }
            stalls.increment();
            while (true) {
                lock.lock();
                try {
                    waiters++;
                    try {
                        if (total.get() < budget || closed || source.failed()) {
                            return true;
                        }
                        changed.awaitUninterruptibly();
                    } finally {
                        waiters--;
                    }
                } finally {
                    lock.unlock();
                }
                maybeFlush();
            }
        }

        /** After a write of this member: measures it and applies the flush rule. */
        public void afterWrite() {
            refresh();
            maybeFlush();
        }

        /** Measures this member's memtables and publishes the change; wakes waiters if anything moved. */
        public void refresh() {
            long deltaAll;
            long deltaMutable;
            refreshLock.lock();
            try {
                if (closed) {
                    return;
                }
                long newMutable = 0;
                long newAll = 0;
                if (!source.failed()) {
                    if (!source.measure(measured)) {
                        return;
                    }
                    newMutable = measured[0];
                    newAll = measured[1];
                }
                deltaAll = newAll - allBytes;
                deltaMutable = newMutable - mutableBytes;
                allBytes = newAll;
                mutableBytes = newMutable;
                total.addAndGet(deltaAll);
                mutable.addAndGet(deltaMutable);
            } finally {
                refreshLock.unlock();
            }
            if (deltaAll != 0 || deltaMutable != 0) {
                signalWaiters();
            }
        }

        /** This member's memtable bytes as last measured. */
        public long usedBytes() {
            return allBytes;
        }

        /** Leaves the budget: its bytes stop counting and waiters re-check. Idempotent. */
        @Override
        public void close() {
            refreshLock.lock();
            try {
                if (closed) {
                    return;
                }
                closed = true;
                members.remove(this);
                total.addAndGet(-allBytes);
                mutable.addAndGet(-mutableBytes);
                allBytes = 0;
                mutableBytes = 0;
            } finally {
                refreshLock.unlock();
            }
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
