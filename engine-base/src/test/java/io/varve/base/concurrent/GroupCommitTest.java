package io.varve.base.concurrent;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Group commit used the way a write-ahead log uses it, each interleaving forced with gates: a writer appends,
 * then enters a request for its position, whose group's work is one fsync of everything appended so far.
 * Writers that arrive during an fsync ride the next one, covered writers are released without waiting for the
 * next fsync, and a failure that stops the group commit releases everyone.
 */
class GroupCommitTest {

    /** A log whose fsyncs block until the test lets each one finish. */
    private static final class GatedLog {
        final AtomicLong appended = new AtomicLong();
        final AtomicInteger syncsStarted = new AtomicInteger();
        final Semaphore finishSync = new Semaphore(0);
        final AtomicBoolean syncing = new AtomicBoolean();
        volatile RuntimeException failNext;
        volatile long durable;
        final GroupCommit groupCommit;

        GatedLog() {
            this(average -> 0); // no gathering unless a test asks for it
        }

        GatedLog(java.util.function.LongUnaryOperator gatherNanos) {
            groupCommit = new GroupCommit(this::syncGroup, Long.MAX_VALUE, gatherNanos);
        }

        /** A writer's wait for its record's position. */
        final class At extends GroupCommit.Request {
            final long position;

            At(long position) {
                super(false, 0, true);
                this.position = position;
            }

            @Override
            protected boolean alreadyServed() {
                return durable >= position;
            }
        }

        private void syncGroup(List<GroupCommit.Request> group) {
            assertTrue(syncing.compareAndSet(false, true), "two syncs ran at once");
            try {
                long snapshot = appended.get();
                for (GroupCommit.Request r : group) {
                    assertTrue(((At) r).position <= snapshot, "a member appended after the group was taken");
                }
                syncsStarted.incrementAndGet();
                finishSync.acquireUninterruptibly();
                RuntimeException failure = failNext;
                if (failure != null) {
                    groupCommit.stop(); // a failed fsync is final, as the log's failure waker makes it
                    throw failure;
                }
                advance(snapshot);
                group.forEach(r -> r.succeed(0));
            } finally {
                syncing.set(false);
            }
        }

        synchronized void advance(long position) {
            durable = Math.max(durable, position);
        }

        /** Whether {@code position} is durable when this returns; false when the group commit stopped first. */
        boolean await(long position) {
            At request = new At(position);
            groupCommit.enter(request);
            return request.failure() == null;
        }

        /** Appends one record on a new thread and awaits its durability there. */
        Writer write() {
            long position = appended.incrementAndGet();
            return write(position);
        }

        Writer write(long position) {
            Writer w = new Writer(position);
            w.thread = Thread.ofPlatform().start(() -> {
                try {
                    w.durable.set(await(position));
                } catch (Throwable t) {
                    w.thrown.set(t);
                }
            });
            return w;
        }

        void awaitSyncStarted(int n) {
            while (syncsStarted.get() < n) {
                Thread.onSpinWait();
            }
        }

        void awaitQueued(int n) {
            while (groupCommit.queued() < n) {
                Thread.onSpinWait();
            }
        }
    }

    private static final class Writer {
        final long position;
        final AtomicReference<Boolean> durable = new AtomicReference<>();
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread;

        Writer(long position) {
            this.position = position;
        }

        boolean join() throws InterruptedException {
            thread.join();
            if (thrown.get() != null) {
                throw new AssertionError("writer " + position + " threw", thrown.get());
            }
            return durable.get();
        }
    }

    @Test
    void writersArrivingDuringAnFsyncAllRideTheNextOne() throws InterruptedException {
        GatedLog log = new GatedLog();
        Writer leader = log.write();
        log.awaitSyncStarted(1);
        List<Writer> arrivals = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            arrivals.add(log.write());
        }
        log.awaitQueued(8);
        log.finishSync.release(); // first fsync ends: it covered only the leader
        assertTrue(leader.join(), "the leader's own record is durable when it returns");
        log.awaitSyncStarted(2);
        Writer late = log.write(); // arrives during the second fsync
        log.awaitQueued(1);
        log.finishSync.release();
        for (Writer w : arrivals) {
            assertTrue(w.join());
        }
        log.finishSync.release();
        assertTrue(late.join());
        assertEquals(3, log.syncsStarted.get(), "one fsync for the leader, one for the 8 arrivals, one for the late");
        assertEquals(10, log.durable);
    }

    @Test
    void coveredWritersReturnWithoutWaitingForTheNextFsync() throws InterruptedException {
        GatedLog log = new GatedLog();
        long first = log.appended.incrementAndGet();
        long second = log.appended.incrementAndGet();
        Writer leader = log.write(first);
        log.awaitSyncStarted(1); // its snapshot includes the second record
        Writer covered = log.write(second);
        log.awaitQueued(1);
        Writer uncovered = log.write();
        log.awaitQueued(2);
        log.finishSync.release();
        log.awaitSyncStarted(2); // the uncovered writer leads the next fsync, which stays blocked
        assertTrue(covered.join(), "released by the first fsync while the second is still running");
        assertTrue(leader.join());
        assertTrue(uncovered.thread.isAlive(), "the second fsync is still blocked");
        log.finishSync.release();
        assertTrue(uncovered.join());
        assertEquals(2, log.syncsStarted.get());
    }

    /** Gathering that never times out, so the outcome is the rule's, not the clock's. */
    private static final java.util.function.LongUnaryOperator GATHER_UNTIL_COMPANY = average -> Long.MAX_VALUE / 4;

    /** Runs one fsync that serves three writers, so that the next leader gathers for three. */
    private static void fsyncForThree(GatedLog log) throws InterruptedException {
        long first = log.appended.incrementAndGet();
        long second = log.appended.incrementAndGet();
        long third = log.appended.incrementAndGet();
        int syncsBefore = log.syncsStarted.get(); // read before the leader runs: it may start its sync at once
        Writer leader = log.write(first);
        log.awaitSyncStarted(syncsBefore + 1);
        Writer b = log.write(second);
        Writer c = log.write(third);
        log.awaitQueued(2);
        log.finishSync.release();
        assertTrue(leader.join());
        assertTrue(b.join());
        assertTrue(c.join());
    }

    @Test
    void aNewLeaderWaitsForAsManyWritersAsThePreviousFsyncServed() throws InterruptedException {
        GatedLog log = new GatedLog(GATHER_UNTIL_COMPANY);
        fsyncForThree(log);
        Writer leader = log.write();
        Writer second = log.write();
        log.awaitQueued(1);
        assertEquals(1, log.syncsStarted.get(), "two writers of three: the leader still gathers");
        Writer third = log.write();
        log.awaitSyncStarted(2);
        log.finishSync.release();
        assertTrue(leader.join());
        assertTrue(second.join());
        assertTrue(third.join());
        assertEquals(2, log.syncsStarted.get(), "one fsync for the three");
    }

    @Test
    void afterAnFsyncForOneWriterNobodyGathers() throws InterruptedException {
        GatedLog log = new GatedLog(GATHER_UNTIL_COMPANY);
        Writer alone = log.write();
        log.awaitSyncStarted(1);
        log.finishSync.release();
        assertTrue(alone.join());
        Writer next = log.write();
        log.awaitSyncStarted(2); // would never start if the leader gathered: gathering here waits for good
        log.finishSync.release();
        assertTrue(next.join());
    }

    @Test
    void stopEndsAGatheringLeadersWait() throws InterruptedException {
        GatedLog log = new GatedLog(GATHER_UNTIL_COMPANY);
        fsyncForThree(log);
        Writer leader = log.write();
        Writer second = log.write();
        log.awaitQueued(1);
        log.groupCommit.stop();
        assertFalse(second.join());
        assertFalse(leader.join(), "the gathering leader gives up without an fsync");
        assertEquals(1, log.syncsStarted.get());
    }

    @Test
    void aFailedFsyncReleasesEveryWaiterAndStopsForGood() throws InterruptedException {
        GatedLog log = new GatedLog();
        RuntimeException diskGone = new RuntimeException("disk gone");
        log.failNext = diskGone;
        Writer leader = log.write();
        log.awaitSyncStarted(1);
        Writer follower = log.write();
        log.awaitQueued(1);
        log.finishSync.release();
        leader.thread.join();
        assertSame(diskGone, leader.thrown.get(), "the leader's caller gets what the fsync threw");
        assertFalse(follower.join(), "the follower learns its record may not be durable");
        assertTrue(log.groupCommit.stopped());
        log.failNext = null;
        assertFalse(log.await(log.appended.incrementAndGet()), "no fsync after a failure");
        assertEquals(1, log.syncsStarted.get());
        assertEquals(0, log.durable);
    }

    @Test
    void stopReleasesWaitersWhileAnFsyncRuns() throws InterruptedException {
        GatedLog log = new GatedLog();
        Writer leader = log.write();
        log.awaitSyncStarted(1);
        Writer follower = log.write();
        log.awaitQueued(1);
        log.groupCommit.stop();
        assertFalse(follower.join(), "released by stop before the fsync in flight ends");
        log.finishSync.release();
        assertTrue(leader.join(), "the fsync in flight still counts for its leader");
        assertEquals(1, log.syncsStarted.get());
    }

    @Test
    void aRequestAlreadyServedOnEntryNeedsNoLeader() {
        GatedLog log = new GatedLog();
        log.advance(5); // durability won elsewhere: a sealed log's final fsync, say
        assertTrue(log.await(5));
        log.groupCommit.stop();
        assertTrue(log.await(4), "served before the stop: still a success");
        assertFalse(log.await(6));
        assertEquals(0, log.syncsStarted.get());
    }

    @Test
    void aQueuedRequestServedByDurabilityWonElsewhereLeavesWithTheRunningGroup() throws InterruptedException {
        GatedLog log = new GatedLog();
        Writer leader = log.write();
        log.awaitSyncStarted(1); // its fsync covers position 1
        Writer queued = log.write(7); // made durable some other way while it waits
        log.awaitQueued(1);
        log.advance(7);
        log.finishSync.release();
        assertTrue(queued.join(), "released when the running group finished");
        assertTrue(leader.join());
        assertEquals(1, log.syncsStarted.get(), "no fsync of its own");
    }

    @Test
    void aWriterInterruptedWhileWaitingStillLearnsTheOutcome() throws InterruptedException {
        GatedLog log = new GatedLog();
        Writer leader = log.write();
        log.awaitSyncStarted(1);
        Writer follower = log.write();
        log.awaitQueued(1);
        follower.thread.interrupt();
        log.finishSync.release(); // covers only the leader; the follower leads the next
        log.awaitSyncStarted(2);
        log.finishSync.release();
        assertTrue(leader.join());
        assertTrue(follower.join(), "an interrupt does not abandon a record on its way to disk");
    }

    @Test
    void manyWritersEachReturnDurableWithFewerFsyncsThanWrites() throws InterruptedException {
        AtomicLong appended = new AtomicLong();
        AtomicBoolean syncing = new AtomicBoolean();
        AtomicInteger syncs = new AtomicInteger();
        AtomicLong lastSynced = new AtomicLong();
        GroupCommit groupCommit = new GroupCommit(group -> {
            assertTrue(syncing.compareAndSet(false, true), "two syncs ran at once");
            long snapshot = appended.get();
            syncs.incrementAndGet();
            lastSynced.set(snapshot);
            syncing.set(false);
            group.forEach(r -> r.succeed(0));
        }, Long.MAX_VALUE);
        int threads = 8;
        int writes = 200;
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> error = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < writes; i++) {
                        long position = appended.incrementAndGet();
                        GroupCommit.Request request = new GroupCommit.Request(false, 0, true) { };
                        groupCommit.enter(request);
                        assertTrue(request.failure() == null);
                        assertTrue(lastSynced.get() >= position, "returned before an fsync covered it");
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        if (error.get() != null) {
            throw new AssertionError(error.get());
        }
        assertEquals(threads * writes, lastSynced.get());
    }
}
