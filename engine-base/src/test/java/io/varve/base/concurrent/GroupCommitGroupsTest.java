package io.varve.base.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit used the way a raft log uses it: the leader does the whole group's work, weights bound a group,
 * exclusive requests run alone. Gathering is made independent of timing: the test decides how long a leader
 * may wait for company (a minute, in effect forever), and holds rounds at a latch to build the queue it wants.
 */
class GroupCommitGroupsTest {
    private static final long FOREVER = TimeUnit.SECONDS.toNanos(60);

    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** The groups led, in order, each as its members' names. */
    private final List<List<String>> groups = new CopyOnWriteArrayList<>();
    /** When set, the next leader blocks here (and counts down {@code leading}) before settling its group. */
    private volatile CountDownLatch hold;
    private volatile CountDownLatch leading = new CountDownLatch(1);

    /** A request with a name, so the groups read as their members. */
    private static final class Named extends GroupCommit.Request {
        final String name;

        Named(String name, boolean exclusive, long weight, boolean durable) {
            super(exclusive, weight, durable);
            this.name = name;
        }
    }

    private final GroupCommit.Leader leader = group -> {
        groups.add(group.stream().map(r -> ((Named) r).name).toList());
        CountDownLatch h = hold;
        if (h != null) {
            hold = null;
            leading.countDown();
            try {
                h.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        group.forEach(r -> r.succeed(0));
    };

    private static Named synced(String name) {
        return new Named(name, false, 1, true);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private Future<?> enter(GroupCommit groupCommit, Named request) {
        return pool.submit(() -> groupCommit.enter(request));
    }

    /** Holds a round led by {@code first} at the latch while {@code queued} queue behind it, then releases it. */
    private void roundWithQueued(GroupCommit groupCommit, Named first, List<Named> queued) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        leading = new CountDownLatch(1);
        hold = release;
        Future<?> head = enter(groupCommit, first);
        assertTrue(leading.await(30, TimeUnit.SECONDS));
        List<Future<?>> behind = new ArrayList<>();
        for (Named r : queued) {
            behind.add(enter(groupCommit, r));
            awaitQueued(groupCommit, behind.size()); // one at a time: the queue's order is the test's
        }
        release.countDown();
        head.get(30, TimeUnit.SECONDS);
        for (Future<?> f : behind) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitQueued(GroupCommit groupCommit, int n) {
        while (groupCommit.queued() < n) {
            Thread.onSpinWait();
        }
    }

    private void roundOfOnePlusFiveSynced(GroupCommit groupCommit) throws Exception {
        roundWithQueued(groupCommit, synced("a"),
                List.of(synced("b"), synced("c"), synced("d"), synced("e"), synced("f")));
    }

    @Test
    void aLeaderWaitsForAsManyWritersAsTheLastSyncedGroupHad() throws Exception {
        GroupCommit groupCommit = new GroupCommit(leader, Long.MAX_VALUE, average -> FOREVER);
        roundOfOnePlusFiveSynced(groupCommit);
        assertEquals(List.of(List.of("a"), List.of("b", "c", "d", "e", "f")), groups);
        // A writer alone now leads, and waits until four more have joined it: one group of five.
        List<Future<?>> next = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            next.add(enter(groupCommit, synced("g" + i)));
        }
        for (Future<?> f : next) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertEquals(3, groups.size());
        assertEquals(5, groups.get(2).size());
    }

    @Test
    void aWriterAfterAGroupOfOneNeverWaits() throws Exception {
        GroupCommit groupCommit = new GroupCommit(leader, Long.MAX_VALUE, average -> FOREVER);
        for (int i = 0; i < 3; i++) {
            enter(groupCommit, synced("w" + i)).get(30, TimeUnit.SECONDS); // would hang a minute if it gathered
        }
        assertEquals(List.of(List.of("w0"), List.of("w1"), List.of("w2")), groups);
    }

    @Test
    void gatheringEndsWhenItsTimeIsUpEvenWithoutCompany() throws Exception {
        GroupCommit groupCommit = new GroupCommit(leader, Long.MAX_VALUE); // the real bound: a fraction of a ms
        roundOfOnePlusFiveSynced(groupCommit);
        enter(groupCommit, synced("alone")).get(30, TimeUnit.SECONDS);
        assertEquals(List.of("alone"), groups.get(2));
    }

    @Test
    void unsyncedAndExclusiveRequestsDoNotGather() throws Exception {
        GroupCommit groupCommit = new GroupCommit(leader, Long.MAX_VALUE, average -> FOREVER);
        roundOfOnePlusFiveSynced(groupCommit);
        enter(groupCommit, new Named("unsynced", false, 1, false)).get(30, TimeUnit.SECONDS);
        enter(groupCommit, new Named("exclusive", true, 0, false)).get(30, TimeUnit.SECONDS);
        assertEquals(List.of(List.of("unsynced"), List.of("exclusive")), groups.subList(2, 4));
    }

    @Test
    void weightsBoundAGroupAndTheHeadAlwaysFits() throws Exception {
        GroupCommit groupCommit = new GroupCommit(leader, 3, average -> 0);
        roundWithQueued(groupCommit, new Named("a", false, 1, false), List.of(
                new Named("b", false, 1, false), new Named("c", false, 2, false), new Named("d", false, 1, false),
                new Named("huge", false, 10, false), new Named("e", false, 1, false)));
        assertEquals(List.of(List.of("a"), List.of("b", "c"), List.of("d"), List.of("huge"), List.of("e")), groups);
    }

    @Test
    void anExclusiveRequestRunsAloneBetweenTheGroupsBeforeAndAfterIt() throws Exception {
        GroupCommit groupCommit = new GroupCommit(leader, Long.MAX_VALUE, average -> 0);
        roundWithQueued(groupCommit, synced("a"), List.of(synced("b"), synced("c"), new Named("purge", true, 0, false),
                synced("d"), synced("e")));
        assertEquals(List.of(List.of("a"), List.of("b", "c"), List.of("purge"), List.of("d", "e")), groups);
    }

    @Test
    void aLeaderThatThrowsFailsWhatItLeftUnsettledAndTheGroupCommitGoesOn() throws Exception {
        RuntimeException broken = new IllegalStateException("leader broke");
        AtomicInteger round = new AtomicInteger();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        GroupCommit groupCommit = new GroupCommit(group -> {
            switch (round.getAndIncrement()) {
                case 0 -> {
                    holding.countDown();
                    await(release);
                    group.getFirst().succeed(0);
                }
                case 1 -> {
                    group.getFirst().succeed(7); // settled before the throw: keeps its outcome
                    throw broken;
                }
                default -> {
                    // leaves every member unsettled
                }
            }
        }, Long.MAX_VALUE, average -> 0);
        Future<?> first = enter(groupCommit, synced("first"));
        assertTrue(holding.await(30, TimeUnit.SECONDS));
        Named kept = synced("kept");
        Named failed = synced("failed");
        AtomicReference<Throwable> leaderGot = new AtomicReference<>();
        Future<?> keptWriter = pool.submit(() -> {
            try {
                groupCommit.enter(kept);
            } catch (Throwable t) {
                leaderGot.set(t);
            }
        });
        awaitQueued(groupCommit, 1);
        Future<?> failedWriter = enter(groupCommit, failed);
        awaitQueued(groupCommit, 2);
        release.countDown();
        first.get(30, TimeUnit.SECONDS);
        keptWriter.get(30, TimeUnit.SECONDS);
        failedWriter.get(30, TimeUnit.SECONDS);
        assertSame(broken, leaderGot.get(), "the leader's caller gets what its leader threw");
        assertNull(kept.failure());
        assertEquals(7, kept.result());
        assertSame(broken, failed.failure());

        Named unsettled = synced("unsettled");
        groupCommit.enter(unsettled); // a new group: the group commit went on
        assertInstanceOf(IllegalStateException.class, unsettled.failure());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A request that carries its own number, so the leader can settle it with that number. */
    private static final class Numbered extends GroupCommit.Request {
        final long number;

        Numbered(long number, boolean exclusive, boolean durable) {
            super(exclusive, 1, durable);
            this.number = number;
        }
    }

    @Test
    void manyWritersEachGetTheirOwnOutcomeFromOneLeaderAtATime() throws Exception {
        AtomicInteger leaders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger badGroups = new AtomicInteger();
        AtomicLong led = new AtomicLong();
        GroupCommit groupCommit = new GroupCommit(group -> {
            if (leaders.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            if (group.size() > 4) {
                badGroups.incrementAndGet();
            }
            for (GroupCommit.Request r : group) {
                if (r.exclusive() && group.size() != 1) {
                    badGroups.incrementAndGet();
                }
                Numbered n = (Numbered) r;
                if (n.number % 7 == 3) {
                    r.fail(new IllegalStateException("refused " + n.number));
                } else {
                    r.succeed(n.number);
                }
            }
            led.addAndGet(group.size());
            leaders.decrementAndGet();
        }, 4);
        int threads = 8;
        int perThread = 2_000;
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            results.add(pool.submit(() -> {
                int wrong = 0;
                for (int i = 0; i < perThread; i++) {
                    long number = (long) thread * perThread + i;
                    Numbered r = new Numbered(number, i % 97 == 0, i % 3 != 0);
                    groupCommit.enter(r);
                    boolean refused = number % 7 == 3;
                    if (!r.isSettled() || (refused ? r.failure() == null : r.failure() != null || r.result() != number)) {
                        wrong++;
                    }
                }
                return wrong;
            }));
        }
        for (Future<Integer> f : results) {
            assertEquals(0, f.get(60, TimeUnit.SECONDS), "requests that returned someone else's or no outcome");
        }
        assertEquals(0, overlaps.get(), "two leaders at once");
        assertEquals(0, badGroups.get(), "a group over its weight, or an exclusive request that shared its group");
        assertEquals((long) threads * perThread, led.get());
        assertEquals(0, groupCommit.queued());
    }

    @Test
    void anInterruptEndsGatheringButTheGroupsWorkNeverSeesIt() throws Exception {
        AtomicInteger workSawInterrupt = new AtomicInteger();
        GroupCommit.Leader recording = group -> {
            if (Thread.currentThread().isInterrupted()) {
                workSawInterrupt.incrementAndGet();
            }
            leader.lead(group);
        };
        GroupCommit groupCommit = new GroupCommit(recording, Long.MAX_VALUE, average -> FOREVER);
        roundOfOnePlusFiveSynced(groupCommit);
        Named alone = synced("alone");
        AtomicInteger keptInterrupt = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            Thread.currentThread().interrupt(); // before entering: a leader would gather for a minute otherwise
            groupCommit.enter(alone);
            if (Thread.currentThread().isInterrupted()) {
                keptInterrupt.incrementAndGet();
            }
        });
        writer.join();
        assertEquals(List.of("alone"), groups.get(2), "led alone: the interrupt ended its gathering");
        assertEquals(0, workSawInterrupt.get(), "the group's work ran with the flag clear");
        assertEquals(1, keptInterrupt.get(), "the caller gets its interrupt back");
        assertNull(alone.failure());
    }

    @Test
    void anInterruptedWriterStillWaitsForItsOutcomeAndKeepsTheInterrupt() throws Exception {
        GroupCommit groupCommit = new GroupCommit(leader, Long.MAX_VALUE, average -> FOREVER);
        CountDownLatch release = new CountDownLatch(1);
        leading = new CountDownLatch(1);
        hold = release;
        Future<?> first = enter(groupCommit, synced("first"));
        assertTrue(leading.await(30, TimeUnit.SECONDS));
        Named queued = synced("queued");
        AtomicInteger keptInterrupt = new AtomicInteger();
        AtomicInteger settledOnReturn = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            groupCommit.enter(queued);
            if (queued.isSettled()) {
                settledOnReturn.incrementAndGet();
            }
            if (Thread.currentThread().isInterrupted()) {
                keptInterrupt.incrementAndGet();
            }
        });
        awaitQueued(groupCommit, 1);
        writer.interrupt();
        release.countDown();
        first.get(30, TimeUnit.SECONDS);
        writer.join();
        assertEquals(1, settledOnReturn.get(), "returned only once its group was led");
        assertEquals(1, keptInterrupt.get());
        assertEquals(List.of(List.of("first"), List.of("queued")), groups);
    }
}
