package io.varve.server.command;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The server-wide section that makes EXEC atomic. Every command runs in the gate's shared side (many at once,
 * as before); EXEC runs its queued commands in the exclusive side, so no other client's command — read or
 * write — runs between them, and no reader sees part of an EXEC's writes. A script (EVAL, FCALL) runs in
 * the exclusive side the same way; one that runs past the busy threshold makes the waiters of
 * {@link #sharedUnless} give up, so they answer BUSY instead of waiting for it.
 *
 * <p>Why one gate rather than the stripe locks of the queued commands' keys: readers take no stripe lock
 * (a commit is atomic, so a single-key reader needs none), so stripes alone would let a GET see the first
 * half of an EXEC. Making every reader take stripes would cost every GET; the shared side of a read-write
 * lock costs one uncontended CAS. An EXEC is short and rare next to plain commands, so stopping the world
 * for it is the cheaper trade.
 *
 * <p>Invariants: nothing waits for a client while holding either side (a blocking command with nothing to
 * take parks its reply and leaves the gate; the writer that later serves it does so inside its own hold,
 * so a served pop is as atomic to EXEC as any command); the exclusive holder may take the
 * stripe locks (its commands do), and shared holders take stripes in the usual order, so the gate is always
 * taken before any stripe. The lock is non-fair: a waiting EXEC makes new shared entries wait behind it,
 * so a steady stream of commands cannot starve it.
 */
public final class CommandGate {

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Lock shared = lock.readLock();
    private final Lock exclusive = lock.writeLock();

    /** A held side of the gate; closing releases it. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    public Held shared() {
        shared.lock();
        return shared::unlock;
    }

    /** The shared side if it is free right now (no EXEC runs or waits), else null. For event loops. */
    public Held tryShared() {
        return shared.tryLock() ? shared::unlock : null;
    }

    /** Whether a thread waits to enter either side (tests wait for this to know a command is parked). */
    boolean hasWaiters() {
        return lock.hasQueuedThreads();
    }

    /**
     * The shared side, waiting for it only until {@code giveUp} says to stop (a script has become busy);
     * then null. The wait is taken in slices so the condition is looked at while an exclusive holder runs;
     * a free gate is entered at once.
     */
    public Held sharedUnless(java.util.function.BooleanSupplier giveUp) {
        try {
            while (!shared.tryLock(GIVE_UP_CHECK_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (giveUp.getAsBoolean()) {
                    return null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return shared();
        }
        return shared::unlock;
    }

    /** How often a waiter of {@link #sharedUnless} looks at its condition while the gate is held. */
    private static final long GIVE_UP_CHECK_MILLIS = 20;

    public Held exclusive() {
        exclusive.lock();
        return exclusive::unlock;
    }
}
