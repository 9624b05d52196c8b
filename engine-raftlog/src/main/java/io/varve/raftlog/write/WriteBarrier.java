package io.varve.raftlog.write;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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
 *       settled or when it has become the head with no leader, so no request is ever stranded.</li>
 *   <li>An exclusive request forms a group of its own. Its thread runs with all earlier writes finished and
 *       no later one started: purge uses it to take a consistent cut of the index.</li>
 * </ul>
 * Nobody sleeps or polls: waiting is on a per-request {@link Condition}; waits are uninterruptible because
 * a queued batch may already be on its way to disk and its writer must learn the outcome.
 */
public final class WriteBarrier {

    /** One caller's turn. The leader settles it with {@link #succeed} or {@link #fail}. */
    public static class Request {
        private final boolean exclusive;
        private final long weight;
        private Condition turn;
        private boolean done;
        private boolean settled;
        private long result;
        private Throwable failure;

        /**
         * @param weight the request's size, to bound how much one leader takes on at once
         */
        protected Request(boolean exclusive, long weight) {
            this.exclusive = exclusive;
            this.weight = weight;
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

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Request> pending = new ArrayDeque<>();
    private final Leader leader;
    private final long maxGroupWeight;
    private boolean leading;

    public WriteBarrier(Leader leader, long maxGroupWeight) {
        this.leader = leader;
        this.maxGroupWeight = maxGroupWeight;
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
            while (!request.done && (leading || pending.peekFirst() != request)) {
                request.turn.awaitUninterruptibly();
            }
            if (request.done) {
                return;
            }
            leading = true;
            group = drainGroup();
        } finally {
            lock.unlock();
        }
        try {
            leader.lead(group);
        } catch (Throwable t) {
            for (Request r : group) {
                r.fail(t);
            }
            throw t;
        } finally {
            finish(group);
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

    private void finish(List<Request> group) {
        lock.lock();
        try {
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
