package io.varve.raftlog.write;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongUnaryOperator;

/**
 * Group commit. Writers queue up; the writer at the head of the queue, when no one else is leading, becomes
 * the leader: it takes the queue's current contents as its group, releases the lock, does the group's work
 * (the {@link Leader} appends every batch and syncs once if any member asked for sync), then settles every
 * member and hands leadership to the new head. Writers that arrive while a leader works simply wait: they
 * form the next group, which is how one fdatasync comes to cover many writers.
 *
 * <p>Invariants, all guarded by {@code lock}:
 * <ul>
 *   <li>At most one leader at a time ({@code leading}), so the log file has a single writer and batches reach
 *       it in queue order; a member's outcome is published only after the group's work has completed.</li>
 *   <li>The leader is always the thread of its group's first request. Nobody leads only while nothing is
 *       queued: a writer that arrives then leads at once, and a finishing leader promotes the queue's head
 *       before it lets go, so no request is ever stranded.</li>
 *   <li>An exclusive request forms a group of its own. Its thread runs with all earlier writes finished and
 *       no later one started: purge uses it to take a consistent cut of the index.</li>
 * </ul>
 * Nobody polls. Each request has a volatile state (waiting, leads, done) that only its settling or promoting
 * leader changes, after which it unparks the request's thread; a woken writer reads its outcome from the
 * request without taking the lock. That matters with many synced writers on few cores: woken through a
 * shared lock, the members of a group would run again one after another, each waiting for the previous one
 * to release it, and the next group would gather that much later. Waits are uninterruptible because a queued
 * batch may already be on its way to disk and its writer must learn the outcome (an interrupt is kept for
 * the caller).
 *
 * <p><b>Gathering.</b> Without help, synced writers settle into two alternating groups: while one group's
 * fsync runs, the others queue up, and the members just released come back only after the next group has
 * left. A leader whose request is synced therefore waits, briefly, for as many writers as the previous
 * synced group had (the released members are usually back within microseconds), so that one fsync can serve
 * them all again. The wait ends as soon as that many are queued, and after at most a quarter of the recent
 * synced rounds' duration (never more than {@value #MAX_GATHER_NANOS} ns), so a writer that no longer has
 * company loses at most that once. A lone synced writer (previous group of one) never waits.
 */
public final class WriteBarrier {

    /** One caller's turn. The leader settles it with {@link #succeed} or {@link #fail}. */
    public static class Request {
        private final boolean exclusive;
        private final long weight;
        private final boolean durable;
        private Thread thread;
        /** {@link #WAITING}, then {@link #LEADS} or {@link #DONE}; set by whoever settles or promotes it. */
        private volatile int state = WAITING;
        private boolean settled;
        private long result;
        private Throwable failure;

        /**
         * @param weight the request's size, to bound how much one leader takes on at once
         * @param durable whether the request waits for an fsync (a leader may then gather company for it)
         */
        protected Request(boolean exclusive, long weight, boolean durable) {
            this.exclusive = exclusive;
            this.weight = weight;
            this.durable = durable;
        }

        public boolean exclusive() {
            return exclusive;
        }

        public void succeed(long value) {
            if (!settled) {
                settled = true;
                result = value;
            }
        }

        public void fail(Throwable t) {
            if (!settled) {
                settled = true;
                failure = t;
            }
        }

        public boolean isSettled() {
            return settled;
        }

        /** Valid after {@link WriteBarrier#enter} returned. */
        public long result() {
            return result;
        }

        /** Valid after {@link WriteBarrier#enter} returned; null on success. */
        public Throwable failure() {
            return failure;
        }
    }

    /** Does a group's work. Must settle every request; anything left unsettled fails. */
    public interface Leader {
        void lead(List<Request> group);
    }

    private static final int WAITING = 0;
    private static final int LEADS = 1;
    private static final int DONE = 2;

    /** Longest a leader waits for company, however slow fsyncs are. */
    static final long MAX_GATHER_NANOS = 500_000;

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Request> pending = new ArrayDeque<>();
    private final Leader leader;
    private final long maxGroupWeight;
    /** From the recent synced groups' average duration to how long a leader may wait for company. */
    private final LongUnaryOperator gatherNanos;
    private boolean leading;
    /** Members of the last group that had a synced request; 0 before the first. */
    private int lastDurableGroup;
    /** Moving average of how long groups with a synced request took to lead. */
    private long durableGroupNanos;
    /** The leader waiting for company, if any, and how many queued requests (itself included) it waits for. */
    private Request gatherer;
    private int gatherTarget;

    public WriteBarrier(Leader leader, long maxGroupWeight) {
        this(leader, maxGroupWeight, average -> Math.min(MAX_GATHER_NANOS, average / 4));
    }

    /** Tests choose how long a leader gathers, to make the outcome independent of timing. */
    WriteBarrier(Leader leader, long maxGroupWeight, LongUnaryOperator gatherNanos) {
        this.leader = leader;
        this.maxGroupWeight = maxGroupWeight;
        this.gatherNanos = gatherNanos;
    }

    /** Requests waiting for a leader (not counting the group being written): a load metric. */
    public int queued() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /** Queues the request and returns once it is settled (having possibly led a group itself). */
    public void enter(Request request) {
        request.thread = Thread.currentThread();
        Thread gatheringLeader = null;
        lock.lock();
        try {
            pending.addLast(request);
            if (gatherer != null && pending.size() >= gatherTarget) {
                gatheringLeader = gatherer.thread;
            }
            if (!leading) {
                // Nobody leads only while nothing is queued (finish promotes the next head), so this is the head.
                leading = true;
                request.state = LEADS;
            }
        } finally {
            lock.unlock();
        }
        if (gatheringLeader != null) {
            LockSupport.unpark(gatheringLeader);
        }
        boolean interrupted = false;
        while (request.state == WAITING) {
            LockSupport.park(this);
            // Uninterruptible (see the class comment); park returns at once while the flag is set, so clear it.
            interrupted |= Thread.interrupted();
        }
        if (request.state == LEADS) {
            lead(request);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void lead(Request head) {
        List<Request> group;
        lock.lock();
        try {
            gather(head);
            group = drainGroup();
        } finally {
            lock.unlock();
        }
        long started = System.nanoTime();
        try {
            leader.lead(group);
        } catch (Throwable t) {
            for (Request r : group) {
                r.fail(t);
            }
            throw t;
        } finally {
            finish(group, System.nanoTime() - started);
        }
    }

    /** The new leader waits for company (see the class comment); called with the lock held. */
    private void gather(Request head) {
        if (!head.durable || head.exclusive || lastDurableGroup <= 1 || pending.size() >= lastDurableGroup) {
            return;
        }
        long deadline = System.nanoTime() + gatherNanos.applyAsLong(durableGroupNanos);
        gatherer = head;
        gatherTarget = lastDurableGroup;
        try {
            long wait;
            while (pending.size() < gatherTarget && (wait = deadline - System.nanoTime()) > 0) {
                lock.unlock();
                try {
                    LockSupport.parkNanos(this, wait);
                } finally {
                    lock.lock();
                }
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt(); // stop gathering; the write itself goes on
                    return;
                }
            }
        } finally {
            gatherer = null;
        }
    }

    private List<Request> drainGroup() {
        List<Request> group = new ArrayList<>();
        Request head = pending.pollFirst();
        group.add(head);
        if (head.exclusive) {
            return group;
        }
        long weight = head.weight;
        Request next;
        while ((next = pending.peekFirst()) != null && !next.exclusive && weight + next.weight <= maxGroupWeight) {
            group.add(pending.pollFirst());
            weight += next.weight;
        }
        return group;
    }

    /**
     * Publishes the group's outcomes and hands leadership to the next head. The waiters are woken after the
     * lock is released, each by its own unpark: a woken member returns without touching the lock, so the
     * members run again at once instead of one after another through the lock's queue.
     */
    private void finish(List<Request> group, long nanos) {
        Request next;
        lock.lock();
        try {
            boolean durable = false;
            for (Request r : group) {
                durable |= r.durable;
                if (!r.settled) {
                    r.fail(new IllegalStateException("write leader did not settle a request"));
                }
            }
            if (durable) {
                lastDurableGroup = group.size();
                durableGroupNanos = durableGroupNanos == 0 ? nanos : (7 * durableGroupNanos + nanos) / 8;
            }
            next = pending.peekFirst();
            leading = next != null;
        } finally {
            lock.unlock();
        }
        for (Request r : group) {
            r.state = DONE; // publishes the outcome the leader recorded in the request
            LockSupport.unpark(r.thread);
        }
        if (next != null) {
            next.state = LEADS;
            LockSupport.unpark(next.thread);
        }
    }
}
