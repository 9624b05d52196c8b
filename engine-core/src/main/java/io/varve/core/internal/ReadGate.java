package io.varve.core.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Counts the reads in progress — point lookups and each call on an iterator — so {@code close()} can refuse new
 * ones and wait for the running ones before it frees the memory they read.
 *
 * <h2>Design and invariants</h2>
 * Two {@link LongAdder}s, {@code entered} and {@code exited}, instead of one counter: a read pays two
 * uncontended cell increments, never a shared cache line. A read increments {@code entered}, then reads
 * {@code closed}; {@link #closeAndAwait} writes {@code closed}, then compares the sums. Both sides order a
 * volatile write before a volatile read, so either the read sees {@code closed} (and exits without touching
 * anything) or the closer counts it as in progress. The closer reads {@code exited} before {@code entered}:
 * each read's exit follows its entry, so equal sums mean nothing entered before that moment is still inside.
 *
 * <p>No lost wake-up: the closer compares under {@code lock} and waits on {@code drained}; a read that exits
 * after {@code closed} is set signals under the same lock, so its signal cannot fall between the closer's
 * comparison and its wait.
 */
public final class ReadGate {

    private final LongAdder entered = new LongAdder();
    private final LongAdder exited = new LongAdder();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();
    private final Supplier<IllegalStateException> closedException;
    private volatile boolean closed;

    ReadGate(Supplier<IllegalStateException> closedException) {
        this.closedException = closedException;
    }

    /** Starts a read; throws the closed state once {@link #closeAndAwait} began. Pair with {@link #exit()}. */
    void enter() {
        entered.increment();
        if (closed) {
            exit();
            throw closedException.get();
        }
    }

    void exit() {
        exited.increment();
        if (closed) {
            lock.lock();
            try {
                drained.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Refuses new reads and waits until none is in progress, at most {@code timeout}.
     *
     * @return whether every read ended (false: the bound passed or the caller was interrupted)
     */
    boolean closeAndAwait(long timeout, TimeUnit unit) {
        closed = true;
        long remaining = unit.toNanos(timeout);
        lock.lock();
        try {
            while (true) {
                long out = exited.sum();
                if (out == entered.sum()) {
                    return true;
                }
                if (remaining <= 0) {
                    return false;
                }
                remaining = drained.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }
}
