package io.varve.raftlog.write;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
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
 *   <li>The leader is always the thread of its group's first request: a waiter is woken only when it is
 *       settled or when it has become the head with no leader (or, while it gathers as the new leader, when
 *       the queue has grown), so no request is ever stranded.</li>
 *   <li>An exclusive request forms a group of its own. Its thread runs with all earlier writes finished and
 *       no later one started: purge uses it to take a consistent cut of the index.</li>
 * </ul>
 * Nobody polls: waiting is on a per-request {@link Condition}; waits are uninterruptible because a queued
 * batch may already be on its way to disk and its writer must learn the outcome.
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
        private Condition turn;
        private boolean done;
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
        List<Request> group;
        lock.lock();
        try {
            request.turn = lock.newCondition();
            pending.addLast(request);
            if (gatherer != null && pending.size() >= gatherTarget) {
                gatherer.turn.signal();
            }
            while (!request.done && (leading || pending.peekFirst() != request)) {
                request.turn.awaitUninterruptibly();
            }
            if (request.done) {
                return;
            }
            leading = true;
            gather(request);
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
        long wait = gatherNanos.applyAsLong(durableGroupNanos);
        gatherer = head;
        gatherTarget = lastDurableGroup;
        try {
            while (pending.size() < gatherTarget && wait > 0) {
                wait = head.turn.awaitNanos(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop gathering; the write itself goes on
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

    private void finish(List<Request> group, long nanos) {
        lock.lock();
        try {
            boolean durable = false;
            for (Request r : group) {
                durable |= r.durable;
            }
            if (durable) {
                lastDurableGroup = group.size();
                durableGroupNanos = durableGroupNanos == 0 ? nanos : (7 * durableGroupNanos + nanos) / 8;
            }
            for (Request r : group) {
                if (!r.settled) {
                    r.fail(new IllegalStateException("write leader did not settle a request"));
                }
                r.done = true;
                r.turn.signal();
            }
            leading = false;
            Request next = pending.peekFirst();
            if (next != null) {
                next.turn.signal();
            }
        } finally {
            lock.unlock();
        }
    }
}
