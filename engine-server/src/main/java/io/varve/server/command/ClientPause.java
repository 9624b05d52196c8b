package io.varve.server.command;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * CLIENT PAUSE: until a deadline or CLIENT UNPAUSE, commands wait before they run — all of them, or in WRITE
 * mode only those flagged {@link CommandFlag#WRITE} or {@link CommandFlag#MAY_REPLICATE} (PUBLISH, as Redis
 * pauses it too). Waiting happens on the connection's drainer (a virtual thread), before the command gate, so
 * a paused command holds nothing. Commands flagged {@link CommandFlag#NEVER_PAUSED} (CLIENT) are never
 * paused, so UNPAUSE can always run. The event loop's fast paths ask {@link #active} and hand their
 * requests to the drainer while a pause lasts.
 */
final class ClientPause {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** System.nanoTime() at which the pause ends; meaningful while {@link #paused}. */
    private volatile long untilNanos;
    private volatile boolean paused;
    private volatile boolean writesOnly;
    /** Commands waiting out the pause now; guarded by {@link #lock}. */
    private int waiting;

    /**
     * The longest pause, in milliseconds: about 73 years, far beyond any real pause, short enough that a
     * deadline in {@link System#nanoTime} terms never overflows.
     */
    static final long LONGEST_MILLIS = TimeUnit.NANOSECONDS.toMillis(Long.MAX_VALUE / 4);

    void pause(long millis, boolean onlyWrites) {
        lock.lock();
        try {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(millis, LONGEST_MILLIS));
            // A shorter pause never cuts one in force short, as in Redis.
            if (!paused || until - untilNanos > 0) {
                untilNanos = until;
            }
            writesOnly = paused ? writesOnly && onlyWrites : onlyWrites;
            paused = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void unpause() {
        lock.lock();
        try {
            paused = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A pause is in force (cheap; for the event loop's fast paths). */
    boolean active() {
        return paused && untilNanos - System.nanoTime() > 0;
    }

    /** Whether the pause in force holds {@code spec} now; {@code writes}: it may write or replicate. */
    boolean holds(CommandSpec spec, boolean writes) {
        if (!active() || spec.has(CommandFlag.NEVER_PAUSED)) {
            return false;
        }
        return !writesOnly || writes;
    }

    /**
     * Waits while the pause holds {@code spec}; {@code writes}: it may write or replicate (for EXEC: a queued
     * command may).
     */
    void awaitFor(CommandSpec spec, boolean writes) {
        if (!holds(spec, writes)) {
            return;
        }
        lock.lock();
        try {
            waiting++;
            changed.signalAll();
            while (holds(spec, writes)) {
                changed.awaitNanos(untilNanos - System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            waiting--;
            lock.unlock();
        }
    }

    /** For tests: waits until {@code count} commands wait out the pause. */
    void awaitWaiting(int count) throws InterruptedException {
        lock.lock();
        try {
            while (waiting < count) {
                changed.await();
            }
        } finally {
            lock.unlock();
        }
    }
}
