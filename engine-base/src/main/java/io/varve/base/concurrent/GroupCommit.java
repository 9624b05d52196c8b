package io.varve.base.concurrent;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongUnaryOperator;

/**
 * Group commit: many writers, one leader at a time doing the work of a whole group of them (typically
 * appending their records and issuing one fsync for all), with no dedicated thread.
 *
 * <h2>Requests and leaders</h2>
 * A writer {@link #enter}s a {@link Request} and returns once it is settled. The first writer to find no
 * leader becomes the leader: it takes itself and the requests queued behind it as its <em>group</em> and runs
 * the owner's {@link Leader} on it, outside the queue lock; the leader settles each member. Writers arriving
 * meanwhile queue and park; they form the next group, which is how one fsync comes to serve many writers.
 * A group is bounded by its members' weights ({@code maxGroupWeight}; the head always fits), and an
 * <em>exclusive</em> request forms a group of its own, run with every earlier group finished and no later one
 * started (a raft log's purge takes a consistent cut of its index so).
 *
 * <h2>Hand-over</h2>
 * When the leader's work returns, the leader, under the queue lock, asks every queued request whether the
 * work just done already {@linkplain Request#alreadyServed served} it (a log's fsync covers every record
 * appended before it started, including records of writers that queued after the group was taken), takes
 * those out, and promotes the oldest request still queued to lead the next group. Outside the lock it wakes
 * each released writer by its own unpark, then the new leader. A woken writer reads its outcome from its own
 * request without taking any lock: nobody is released through a shared lock one at a time, and released
 * writers come back (to write again) while the next leader gathers and works, which is what makes groups
 * large. They are woken before the leader because on few cores a leader woken first competes for the CPU they
 * need to re-queue, and starts its work with fewer of them queued.
 *
 * <h2>Gathering</h2>
 * Left at that, n synced writers in a steady loop settle into two alternating groups of about n/2: while one
 * half waits for the fsync in flight, the other half queues for the next. So a new leader whose request is
 * {@code durable} (and not exclusive) first waits, briefly, until as many requests are queued (itself
 * included) as the previous durable group served: the writers just released are usually back within
 * microseconds, and one fsync then serves them all again. The wait ends as soon as that many are queued, else
 * after a quarter of the recent durable groups' average duration and at most {@value #MAX_GATHER_NANOS} ns,
 * so a writer that has lost its company pays that once; after a durable group of one nobody waits.
 * (PostgreSQL's {@code commit_delay}, made adaptive.)
 *
 * <h2>Invariants</h2>
 * Guarded by {@code lock}: {@code pending}, {@code leading}, {@code stopped}, the gathering leader and its
 * target, and the previous durable group's size and the durable groups' average duration.
 * <ul>
 *   <li>{@code leading} is true exactly while some thread leads or is about to (promoted, gathering, or
 *       running the {@link Leader}), so groups never overlap and their work reaches the log in queue order.</li>
 *   <li>A request is queued only while {@code leading} is true, and a finishing leader either promotes a
 *       queued request (leading stays true) or finds none left (leading becomes false). So no request is ever
 *       stranded without a leader to wake it.</li>
 *   <li>Each request is settled once, by exactly one thread: the leader of its group (or, for a member it
 *       left unsettled or when it threw, this class on its behalf, as a failure); the finishing leader that
 *       finds it already served; {@link #stop}; or its own writer, on entry, when it is already served or the
 *       group commit has stopped. Whoever took it out of {@code pending} under the lock settles it. Its state
 *       goes from WAITING to LEADS or DONE once, written after its outcome, so a writer that sees DONE sees
 *       its outcome.</li>
 *   <li>A leader that throws fails every member it left unsettled with what it threw, which then goes to the
 *       leader's own caller; the group commit goes on. Whether a failure is final is the owner's decision:
 *       {@link #stop} makes it so.</li>
 *   <li>Once {@link #stop} has run, every queued request has failed and every later one fails on entry
 *       (unless already served); a group being led finishes and its members get its outcome; a leader still
 *       gathering or promoted but not yet running fails its group without running the {@link Leader}.</li>
 * </ul>
 * Waits are uninterruptible: a record may already be on its way to disk and its writer must learn the outcome.
 * An interrupt is kept for the caller, and kept from the group's work, which serves other writers too: the
 * flag is cleared while a writer waits or leads and restored when {@link #enter} returns. A leader interrupted
 * before it leads does not gather, and one interrupted while gathering stops.
 */
public final class GroupCommit {

    /** One writer's turn. Its leader settles it with {@link #succeed} or {@link #fail}. */
    public static class Request {
        private final boolean exclusive;
        private final long weight;
        private final boolean durable;
        private Thread thread;
        /** WAITING, then LEADS or DONE; written by whoever promotes or settles this request. */
        private volatile int state = WAITING;
        private boolean settled;
        private long result;
        private Throwable failure;

        /**
         * @param exclusive whether the request must form a group of its own
         * @param weight the request's size, to bound how much one leader takes on at once
         * @param durable whether the request waits for an fsync (a leader may then gather company for it)
         */
        protected Request(boolean exclusive, long weight, boolean durable) {
            this.exclusive = exclusive;
            this.weight = weight;
            this.durable = durable;
        }

        /**
         * Whether work done since this request was made already serves it (a log's fsync that covered its
         * record's position, say), so that it needs no group of its own. Asked under the queue lock, on entry
         * and of every queued request each time a group finishes: it must be quick and take no lock. A
         * request that answers true succeeds with result 0. The default answers false.
         */
        protected boolean alreadyServed() {
            return false;
        }

        public final boolean exclusive() {
            return exclusive;
        }

        /** Records success, unless the request is settled already. */
        public final void succeed(long value) {
            if (!settled) {
                settled = true;
                result = value;
            }
        }

        /** Records failure, unless the request is settled already. */
        public final void fail(Throwable t) {
            if (!settled) {
                settled = true;
                failure = t;
            }
        }

        public final boolean isSettled() {
            return settled;
        }

        /** Valid after {@link GroupCommit#enter} returned. */
        public final long result() {
            return result;
        }

        /** Valid after {@link GroupCommit#enter} returned; null on success. */
        public final Throwable failure() {
            return failure;
        }
    }

    /** Does a group's work. Must settle every member; a member left unsettled fails. */
    @FunctionalInterface
    public interface Leader {
        /** Runs on one thread at a time, with no lock of this class held; {@code group} is in queue order. */
        void lead(List<Request> group);
    }

    /** Longest a leader waits for company, however slow fsyncs are. */
    public static final long MAX_GATHER_NANOS = 500_000;

    private static final int WAITING = 0;
    private static final int LEADS = 1;
    private static final int DONE = 2;

    private final Leader leader;
    private final long maxGroupWeight;
    /** From the recent durable groups' average duration to how long a new leader may wait for company. */
    private final LongUnaryOperator gatherNanos;
    private final ReentrantLock lock = new ReentrantLock();
    /** Requests waiting behind the leader, in arrival order (the leader's own is not here). */
    private final ArrayDeque<Request> pending = new ArrayDeque<>();
    private boolean leading;
    private volatile boolean stopped;
    /** Requests the previous durable group served (its leader's and those released early included); 0 before. */
    private int lastDurableGroup;
    /** Moving average of how long durable groups' work took. */
    private long durableGroupNanos;
    /** The leader waiting for company, if any, and how many requests (itself included) it waits for. */
    private Thread gatherer;
    private int gatherTarget;

    /** @param maxGroupWeight the most weight one group takes on (its head always fits) */
    public GroupCommit(Leader leader, long maxGroupWeight) {
        this(leader, maxGroupWeight, average -> Math.min(MAX_GATHER_NANOS, average / 4));
    }

    /** Tests choose how long a leader gathers, so that outcomes do not depend on timing. */
    GroupCommit(Leader leader, long maxGroupWeight, LongUnaryOperator gatherNanos) {
        this.leader = leader;
        this.maxGroupWeight = maxGroupWeight;
        this.gatherNanos = gatherNanos;
    }

    /** Requests waiting behind the leader (not counting the group being led): a load figure. */
    public int queued() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@link #stop} was called. */
    public boolean stopped() {
        return stopped;
    }

    /**
     * Queues the request and returns once it is settled, having led a group itself if no one was leading.
     * After {@link #stop}, a request not {@linkplain Request#alreadyServed already served} fails at once.
     *
     * @throws RuntimeException or Error whatever the {@link Leader} threw, when this thread led the group
     */
    public void enter(Request request) {
        request.thread = Thread.currentThread();
        Thread gatheringLeader = null;
        lock.lock();
        try {
            if (request.alreadyServed()) {
                request.succeed(0);
                return;
            }
            if (stopped) {
                request.fail(stoppedFailure());
                return;
            }
            if (leading) {
                pending.addLast(request);
                if (gatherer != null && pending.size() + 1 >= gatherTarget) {
                    gatheringLeader = gatherer;
                }
            } else {
                leading = true;
                request.state = LEADS;
            }
        } finally {
            lock.unlock();
        }
        if (gatheringLeader != null) {
            LockSupport.unpark(gatheringLeader);
        }
        // Cleared until return: parking ignores it, and a group's work (I/O on an interruptible channel,
        // perhaps) done for many writers must not fail because one of them was interrupted.
        boolean interrupted = Thread.interrupted();
        while (request.state == WAITING) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted(); // park returns at once while the flag is set
        }
        try {
            if (request.state == LEADS) {
                interrupted = lead(request, interrupted);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Gathers, takes the group, runs the leader and hands over (see the type comment).
     *
     * @param interrupted whether the thread was interrupted before it came to lead: then it does not gather
     * @return whether the thread was interrupted, before or while gathering (the flag stays clear for the
     *         group's work)
     */
    private boolean lead(Request head, boolean interrupted) {
        List<Request> group;
        boolean refused;
        lock.lock();
        try {
            interrupted = interrupted || gather(head);
            group = takeGroup(head);
            refused = stopped;
        } finally {
            lock.unlock();
        }
        if (refused) {
            Throwable failure = stoppedFailure();
            for (Request r : group) {
                r.fail(failure);
            }
            handOver(group, -1);
            return interrupted;
        }
        long started = System.nanoTime();
        try {
            leader.lead(group);
        } catch (RuntimeException | Error e) {
            for (Request r : group) {
                r.fail(e);
            }
            throw e;
        } finally {
            handOver(group, System.nanoTime() - started);
        }
        return interrupted;
    }

    /**
     * The new leader waits for company (see the type comment); called with the lock held.
     *
     * @return whether an interrupt ended the wait
     */
    private boolean gather(Request head) {
        int target = lastDurableGroup;
        if (!head.durable || head.exclusive || target <= 1 || pending.size() + 1 >= target || stopped) {
            return false;
        }
        long deadline = System.nanoTime() + gatherNanos.applyAsLong(durableGroupNanos);
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
                    return true; // stop gathering; the group's work itself goes on
                }
            }
            return false;
        } finally {
            gatherer = null;
        }
    }

    /** The head and the requests behind it that fit by weight, up to an exclusive one; called with the lock held. */
    private List<Request> takeGroup(Request head) {
        List<Request> group = new ArrayList<>();
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
     * Releases the group and every queued request its work already served, and promotes the next leader
     * (see the type comment).
     *
     * @param nanos how long the leader's work took, or -1 when it did not run
     */
    private void handOver(List<Request> group, long nanos) {
        List<Request> servedEarly = List.of();
        Request next;
        lock.lock();
        try {
            boolean durable = false;
            for (Request r : group) {
                durable |= r.durable;
                if (!r.settled) {
                    r.fail(new IllegalStateException("the group commit's leader did not settle a request"));
                }
            }
            if (nanos >= 0 && !pending.isEmpty()) {
                for (Iterator<Request> it = pending.iterator(); it.hasNext(); ) {
                    Request r = it.next();
                    if (r.alreadyServed()) {
                        it.remove();
                        r.succeed(0);
                        if (servedEarly.isEmpty()) {
                            servedEarly = new ArrayList<>();
                        }
                        servedEarly.add(r);
                    }
                }
            }
            if (durable && nanos >= 0) {
                lastDurableGroup = group.size() + servedEarly.size();
                durableGroupNanos = durableGroupNanos == 0 ? nanos : (7 * durableGroupNanos + nanos) / 8;
            }
            next = pending.pollFirst();
            leading = next != null;
        } finally {
            lock.unlock();
        }
        release(group);
        release(servedEarly);
        if (next != null) {
            next.state = LEADS;
            LockSupport.unpark(next.thread);
        }
    }

    /** Publishes the settled requests' outcomes and wakes their writers, each by its own unpark. */
    private static void release(List<Request> settled) {
        for (Request r : settled) {
            r.state = DONE;
            LockSupport.unpark(r.thread);
        }
    }

    /**
     * Stops the group commit for good: every queued request fails at once, and so does every later one not
     * already served (see the type comment). A group being led finishes; its members get its outcome. Safe to
     * call from any thread, holding any lock that no writer takes while in {@link #enter} (the queue lock is a
     * leaf).
     */
    public void stop() {
        List<Request> failed;
        Thread gatheringLeader;
        lock.lock();
        try {
            stopped = true;
            failed = new ArrayList<>(pending);
            pending.clear();
            gatheringLeader = gatherer;
            Throwable failure = stoppedFailure();
            for (Request r : failed) {
                r.fail(failure);
            }
        } finally {
            lock.unlock();
        }
        if (gatheringLeader != null) {
            LockSupport.unpark(gatheringLeader);
        }
        release(failed);
    }

    private static IllegalStateException stoppedFailure() {
        return new IllegalStateException("the group commit has stopped");
    }
}
