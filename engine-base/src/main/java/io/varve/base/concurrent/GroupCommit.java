package io.varve.base.concurrent;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongUnaryOperator;

/**
 * Group commit for a log that writers append to on their own and then need made durable: many writers, one
 * fsync at a time, each fsync covering everything appended before it started.
 *
 * <h2>Positions</h2>
 * A log position is a number that grows with every append (a byte offset that runs on across files, say).
 * After appending, a writer calls {@link #await} with the position just past its record. The {@link Syncer}
 * makes everything appended so far durable and answers the position that is now durable; it is the only
 * code that touches the disk, and it runs on one thread at a time.
 *
 * <h2>Design</h2>
 * At most one writer <em>leads</em>: it runs the syncer once, then hands over. Every writer that calls
 * {@link #await} while a sync runs joins the <em>pending queue</em> and parks, so the next sync, which starts
 * as soon as the current one ends (after the brief gathering below), carries every one of them: a writer never waits for two syncs after the one
 * in progress, and never competes to lead. When a sync returns, its leader, under the queue lock, takes out
 * every waiter the new durable position covers and promotes the oldest waiter it does not cover (one that
 * appended after the sync had taken its snapshot) to lead the next sync. Outside the lock it wakes the new
 * leader first, so the next fsync is not held up, then each covered waiter by its own unpark. A woken waiter
 * reads its outcome from its own node without taking any lock: nobody is released through a shared lock one
 * at a time, and the released writers come back (to append again) while the next fsync runs, which is what
 * makes the groups large.
 *
 * <h2>Gathering</h2>
 * Left at that, n writers in a steady loop settle into two alternating groups of about n/2: while one half
 * waits for the fsync in flight, the other half appends and queues for the next. And when an fsync is quicker
 * than a released writer's way back, groups shrink further. So a new leader first waits, briefly, until as many
 * writers are queued (itself included) as the previous fsync served: the writers just released are usually
 * back within microseconds, and one fsync then serves them all again. The wait ends as soon as that many are
 * queued, else after a quarter of the recent fsyncs' average duration and at most {@value #MAX_GATHER_NANOS} ns,
 * so a writer that has lost its company pays that once; after an fsync that served one writer nobody waits.
 * (PostgreSQL's {@code commit_delay}, made adaptive; the raft log's {@code WriteBarrier} gathers by the same
 * rule.)
 *
 * <h2>Invariants</h2>
 * Guarded by {@code lock}: {@code pending}, {@code leading}, {@code stopped}, the gathering leader and its
 * target, and the previous group's size and the fsyncs' average duration.
 * <ul>
 *   <li>{@code leading} is true exactly while some thread runs or is about to run the syncer, so the syncer
 *       never runs twice at once.</li>
 *   <li>A waiter is queued only while {@code leading} is true, and a finishing leader either promotes a queued
 *       waiter (leading stays true) or finds none left uncovered (leading becomes false). So no waiter is ever
 *       stranded without a leader to wake it.</li>
 *   <li>A waiter's node goes from WAITING to LEADS or DONE once, written by the thread that settles it after
 *       the durable position has been raised past it (or the group commit has stopped): a writer that sees DONE
 *       reads the durable position and so learns whether its record is durable.</li>
 *   <li>{@code durable} only grows. Besides the leaders, {@link #advance} raises it for durability won some
 *       other way (a log's final fsync on a background thread).</li>
 *   <li>A syncer that throws stops the group commit for good ({@link #stop} does the same from outside): every
 *       waiter wakes and {@link #await} answers false to it and to every later caller whose position is not
 *       durable, so the owner reports its own failure. The thrown exception goes to the leader's caller.</li>
 * </ul>
 * Waits are uninterruptible: a record may already be on its way to disk and its writer must learn the outcome.
 * An interrupt is kept for the caller.
 */
public final class GroupCommit {

    /** Makes durable everything appended so far. */
    @FunctionalInterface
    public interface Syncer {
        /**
         * Runs on one thread at a time.
         *
         * @return the position now durable: at least every position appended before this call began
         */
        long sync();
    }

    /** Longest a leader waits for company, however slow fsyncs are. */
    public static final long MAX_GATHER_NANOS = 500_000;

    private static final int WAITING = 0;
    private static final int LEADS = 1;
    private static final int DONE = 2;

    /** One writer's wait. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        final long position;
        /** WAITING, then LEADS or DONE; written by the thread that settles this waiter. */
        volatile int state = WAITING;

        Waiter(long position) {
            this.position = position;
        }
    }

    private final Syncer syncer;
    private final ReentrantLock lock = new ReentrantLock();
    private ArrayDeque<Waiter> pending = new ArrayDeque<>();
    private boolean leading;
    private volatile boolean stopped;
    private volatile long durable;
    /** From the recent fsyncs' average duration to how long a new leader may wait for company. */
    private final LongUnaryOperator gatherNanos;
    /** Writers the previous fsync served (its leader included); 0 before the first. */
    private int lastGroup;
    /** Moving average of the syncer's duration. */
    private long syncNanos;
    /** The leader waiting for company, if any, and how many writers (itself included) it waits for. */
    private Thread gatherer;
    private int gatherTarget;

    /** @param durable the position durable at the start (everything recovered, say) */
    public GroupCommit(Syncer syncer, long durable) {
        this(syncer, durable, average -> Math.min(MAX_GATHER_NANOS, average / 4));
    }

    /** Tests choose how long a leader gathers, so that outcomes do not depend on timing. */
    GroupCommit(Syncer syncer, long durable, LongUnaryOperator gatherNanos) {
        this.syncer = syncer;
        this.durable = durable;
        this.gatherNanos = gatherNanos;
    }

    /** The highest position known durable. */
    public long durablePosition() {
        return durable;
    }

    /** Whether a sync failed or {@link #stop} was called. */
    public boolean stopped() {
        return stopped;
    }

    /**
     * Returns once {@code position} is durable, having led a sync itself if no one was leading.
     *
     * @return true when the position is durable; false when the group commit stopped first (a sync failed, here
     *         or on another writer, or {@link #stop} was called), so the caller must report its owner's failure
     * @throws RuntimeException or Error whatever the syncer threw, when this thread led the failing sync
     */
    public boolean await(long position) {
        if (durable >= position) {
            return true;
        }
        Waiter me = new Waiter(position);
        Thread gatheringLeader = null;
        lock.lock();
        try {
            if (durable >= position) {
                return true;
            }
            if (stopped) {
                return false;
            }
            if (leading) {
                pending.addLast(me);
                if (gatherer != null && pending.size() + 1 >= gatherTarget) {
                    gatheringLeader = gatherer;
                }
            } else {
                leading = true;
                me.state = LEADS;
            }
        } finally {
            lock.unlock();
        }
        if (gatheringLeader != null) {
            LockSupport.unpark(gatheringLeader);
        }
        boolean interrupted = false;
        while (me.state == WAITING) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted(); // park returns at once while the flag is set
        }
        try {
            if (me.state == LEADS) {
                lead();
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return durable >= position;
    }

    /** Runs one sync and hands over (see the type comment). Caller was made leader. */
    private void lead() {
        Throwable failure = null;
        long started = 0;
        try {
            gather();
            if (!stopped) {
                started = System.nanoTime();
                raise(syncer.sync());
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            handOver(failure != null, started == 0 ? -1 : System.nanoTime() - started);
        }
    }

    /** The new leader waits for company (see the type comment). */
    private void gather() {
        lock.lock();
        try {
            int target = lastGroup;
            if (target <= 1 || pending.size() + 1 >= target || stopped) {
                return;
            }
            long deadline = System.nanoTime() + gatherNanos.applyAsLong(syncNanos);
            gatherer = Thread.currentThread();
            gatherTarget = target;
            try {
                long wait;
                while (pending.size() + 1 < target && !stopped && (wait = deadline - System.nanoTime()) > 0) {
                    lock.unlock();
                    try {
                        LockSupport.parkNanos(this, wait);
                    } finally {
                        lock.lock();
                    }
                    if (Thread.interrupted()) {
                        Thread.currentThread().interrupt(); // stop gathering; the sync itself goes on
                        return;
                    }
                }
            } finally {
                gatherer = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /** @param syncNanos how long the syncer ran, or -1 when it did not run */
    private void handOver(boolean failed, long syncNanos) {
        List<Waiter> released = new ArrayList<>();
        Waiter next = null;
        lock.lock();
        try {
            if (failed) {
                stopped = true;
            }
            long now = durable;
            ArrayDeque<Waiter> uncovered = new ArrayDeque<>();
            for (Waiter w : pending) {
                if (w.position <= now || stopped) {
                    released.add(w);
                } else {
                    uncovered.addLast(w);
                }
            }
            next = uncovered.pollFirst();
            pending = uncovered;
            leading = next != null;
            if (syncNanos >= 0) {
                lastGroup = released.size() + 1;
                this.syncNanos = this.syncNanos == 0 ? syncNanos : (7 * this.syncNanos + syncNanos) / 8;
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            next.state = LEADS;
            LockSupport.unpark(next.thread);
        }
        for (Waiter w : released) {
            w.state = DONE;
            LockSupport.unpark(w.thread);
        }
    }

    /** Raises the durable position to {@code position} if it is lower: durability won outside {@link #await}. */
    public void advance(long position) {
        raise(position);
    }

    private void raise(long position) {
        // Leaders raise it one at a time, but advance() may run beside a leader, so take the lock to keep it
        // monotonic; it is held for two field accesses.
        lock.lock();
        try {
            if (position > durable) {
                durable = position;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops group commit for good: every waiter wakes and {@link #await} answers false from now on for any
     * position not yet durable. A sync in progress finishes; its leader's caller gets its outcome. Safe to call
     * from any thread, holding any lock that no waiter's owner takes while awaiting (the queue lock is a leaf).
     */
    public void stop() {
        List<Waiter> released;
        Thread gatheringLeader;
        lock.lock();
        try {
            stopped = true;
            released = new ArrayList<>(pending);
            pending.clear();
            gatheringLeader = gatherer;
            // A running leader keeps leading until it hands over; there is no one left to promote.
        } finally {
            lock.unlock();
        }
        if (gatheringLeader != null) {
            LockSupport.unpark(gatheringLeader);
        }
        for (Waiter w : released) {
            w.state = DONE;
            LockSupport.unpark(w.thread);
        }
    }

    /** Writers parked for a sync (not counting the leader): a load figure for tests and metrics. */
    public int waiting() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }
}
