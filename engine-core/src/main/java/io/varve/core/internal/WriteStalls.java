package io.varve.core.internal;

import io.varve.core.Options;
import io.varve.core.WriteStallException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Holds writers back when background work falls behind, instead of letting level 0 or the memtable queue
 * grow without bound (which makes reads ever slower and memory unbounded).
 *
 * <ul>
 *   <li><b>Stop</b>: too many immutable memtables, level-0 tables or pending compaction bytes. Writers wait
 *       until a flush or compaction brings the count back under the trigger.</li>
 *   <li><b>Slowdown</b>: nearer the limits, each write is delayed in proportion to its size at
 *       {@code delayedWriteRate}, giving background work room before a hard stop.</li>
 * </ul>
 * Checked before a write enters the commit pipeline, holding no lock. Background work calls
 * {@link #changed()} whenever the counts move; a background failure wakes every waiter, which then throws
 * the failure, and {@link #close()} wakes every waiter, which then throws the closed state — a stalled writer
 * can never wait for work that will not come.
 *
 * <p>These triggers look at one database. A database under a memtable budget shared with others meets a
 * second hold right after this one, also holding no lock: {@link WriteBufferBudget}.
 */
public final class WriteStalls {

    /** The numbers the triggers look at, read without locks. */
    interface State {
        int immutableMemtables();

        int level0Tables();

        long pendingCompactionBytes();

        /** Non-null once the database failed. */
        Throwable failure();
    }

    final LongAdder stops = new LongAdder();
    final LongAdder slowdowns = new LongAdder();
    final LongAdder stallNanos = new LongAdder();

    private final Options options;
    private final State state;
    private final Supplier<IllegalStateException> closedException;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Set once by {@link #close()}; read by stopped writers under lock, by others without. */
    private volatile boolean closed;

    /** @param closedException what a writer woken or refused by {@link #close()} throws */
    WriteStalls(Options options, State state, Supplier<IllegalStateException> closedException) {
        this.options = options;
        this.state = state;
        this.closedException = closedException;
    }

    /** The counts the triggers look at, for the database's statistics. */
    State state() {
        return state;
    }

    /**
     * Delays or blocks the calling writer as the triggers require; with {@code noSlowdown}, throws
     * {@link WriteStallException} instead of delaying or blocking.
     */
    void beforeWrite(long bytes, boolean noSlowdown) {
        if (noSlowdown) {
            checkFailure();
            if (stopped()) {
                throw ApiAccess.get().writeStall("writes are stopped until background work catches up");
            }
            if (slowed()) {
                throw ApiAccess.get().writeStall("writes are slowed down until background work catches up");
            }
            return;
        }
        if (stopped()) {
            long start = System.nanoTime();
            stops.increment();
            lock.lock();
            try {
                while (stopped() && !closed) {
                    changed.awaitUninterruptibly();
                }
            } finally {
                lock.unlock();
                stallNanos.add(System.nanoTime() - start);
            }
        }
        if (closed) {
            throw closedException.get();
        }
        checkFailure();
        if (slowed()) {
            slowdowns.increment();
            long delay = Math.max(TimeUnit.MICROSECONDS.toNanos(10), bytes * 1_000_000_000L / options.delayedWriteRate());
            long start = System.nanoTime();
            // Pacing the writer, not waiting for an event: time passing is the point.
            LockSupport.parkNanos(this, delay);
            stallNanos.add(System.nanoTime() - start);
        }
    }

    /** Whether a write arriving now would be stopped until background work catches up. */
    boolean writesStopped() {
        return stopped();
    }

    /** Whether a write arriving now would be slowed down. */
    boolean writesSlowed() {
        return !stopped() && slowed();
    }

    private boolean stopped() {
        if (state.failure() != null) {
            return false;
        }
        return state.immutableMemtables() >= options.maxImmutableMemtables()
                || state.level0Tables() >= options.level0StopWritesTrigger()
                || state.pendingCompactionBytes() >= options.hardPendingCompactionBytes();
    }

    private boolean slowed() {
        return state.level0Tables() >= options.level0SlowdownWritesTrigger()
                || state.pendingCompactionBytes() >= options.softPendingCompactionBytes();
    }

    private void checkFailure() {
        Throwable failure = state.failure();
        if (failure != null) {
            throw new UncheckedIOException("database failed in background work; writes are refused, reopen to recover",
                    failure instanceof IOException io ? io : new IOException(failure));
        }
    }

    /**
     * The database is closing: wake every stopped writer, which then throws the closed exception, and stop
     * no writer from now on (a write after close is refused by the commit pipeline anyway).
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Background work moved the counts (or failed): re-check every stopped writer. */
    void changed() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
