package io.varve.base.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Group commit's state machine against a model: random sequences of writers entering (plain, heavy, exclusive),
 * leaders finishing their group (settling every member, leaving one unsettled, or throwing), durability won
 * elsewhere, and stops. Each writer is a thread; the test holds every leader inside its work until it says how
 * the group ends, so the model knows at every step which group runs and who waits, and predicts every group's
 * members and every request's outcome exactly. No gathering, so nothing depends on timing.
 */
class GroupCommitProperties {
    private static final long MAX_GROUP_WEIGHT = 3;
    /** Only a broken group commit keeps a writer waiting this long: the property then fails instead of hanging. */
    private static final Duration GIVE_UP = Duration.ofSeconds(10);

    enum Op { ENTER_LIGHT, ENTER_HEAVY, ENTER_EXCLUSIVE, SUCCEED, LEAVE_LAST_UNSETTLED, THROW, SERVE, STOP }

    /** How a group ends, as the test tells its leader. */
    enum Ending { SUCCEED, LEAVE_LAST_UNSETTLED, THROW }

    /** Predicted outcomes. */
    enum Outcome { SUCCEEDED, SERVED, STOPPED, UNSETTLED, THROWN }

    @Provide
    Arbitrary<List<Op>> ops() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(Op.ENTER_LIGHT)),
                Tuple.of(2, Arbitraries.just(Op.ENTER_HEAVY)),
                Tuple.of(1, Arbitraries.just(Op.ENTER_EXCLUSIVE)),
                Tuple.of(4, Arbitraries.just(Op.SUCCEED)),
                Tuple.of(1, Arbitraries.just(Op.LEAVE_LAST_UNSETTLED)),
                Tuple.of(1, Arbitraries.just(Op.THROW)),
                Tuple.of(1, Arbitraries.just(Op.SERVE)),
                Tuple.of(1, Arbitraries.just(Op.STOP))).list().ofMaxSize(30);
    }

    private static final class Req extends GroupCommit.Request {
        final int id;
        final long weight;
        final Run run;
        volatile Throwable thrown;
        Thread thread;

        Req(Run run, int id, boolean exclusive, long weight) {
            super(exclusive, weight, false);
            this.run = run;
            this.id = id;
            this.weight = weight;
        }

        @Override
        protected boolean alreadyServed() {
            return id <= run.servedUpTo;
        }
    }

    /** One try: the group commit under test, its held leaders, and the model. */
    private static final class Run {
        final BlockingQueue<List<Req>> started = new LinkedBlockingQueue<>();
        final BlockingQueue<Ending> endings = new LinkedBlockingQueue<>();
        final RuntimeException thrownByLeader = new IllegalStateException("the leader threw");
        final GroupCommit groupCommit = new GroupCommit(this::lead, MAX_GROUP_WEIGHT, average -> 0);
        /** Requests with an id up to this are served by work done elsewhere. */
        volatile int servedUpTo;
        int nextId;

        // The model.
        List<Req> running;
        final ArrayDeque<Req> pending = new ArrayDeque<>();
        boolean stopped;
        final Map<Req, Outcome> expected = new HashMap<>();

        private void lead(List<GroupCommit.Request> group) {
            List<Req> members = new ArrayList<>();
            group.forEach(r -> members.add((Req) r));
            started.add(members);
            Ending ending;
            try {
                ending = endings.take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            switch (ending) {
                case SUCCEED -> members.forEach(r -> r.succeed(r.id));
                case LEAVE_LAST_UNSETTLED -> members.subList(0, members.size() - 1).forEach(r -> r.succeed(r.id));
                case THROW -> throw thrownByLeader;
            }
        }

        void enter(boolean exclusive, long weight) throws InterruptedException {
            Req r = new Req(this, ++nextId, exclusive, weight);
            r.thread = Thread.ofVirtual().start(() -> {
                try {
                    groupCommit.enter(r);
                } catch (Throwable t) {
                    r.thrown = t;
                }
            });
            if (r.id <= servedUpTo) {
                settle(r, Outcome.SERVED);
            } else if (stopped) {
                settle(r, Outcome.STOPPED);
            } else if (running == null) {
                startNext(r);
            } else {
                pending.addLast(r);
                awaitQueued();
            }
        }

        /** The model's hand-over after the running group ended, as the group commit must do it. */
        void end(Ending ending) throws InterruptedException {
            List<Req> group = running;
            running = null;
            endings.add(ending);
            for (int i = 0; i < group.size(); i++) {
                Outcome o = switch (ending) {
                    case SUCCEED -> Outcome.SUCCEEDED;
                    case LEAVE_LAST_UNSETTLED -> i == group.size() - 1 ? Outcome.UNSETTLED : Outcome.SUCCEEDED;
                    case THROW -> Outcome.THROWN;
                };
                expected.put(group.get(i), o);
            }
            List<Req> served = new ArrayList<>();
            for (var it = pending.iterator(); it.hasNext(); ) {
                Req r = it.next();
                if (r.id <= servedUpTo) {
                    it.remove();
                    expected.put(r, Outcome.SERVED);
                    served.add(r);
                }
            }
            Req next = pending.pollFirst();
            if (next != null) {
                startNext(next);
            }
            for (Req r : group) {
                check(r);
            }
            for (Req r : served) {
                check(r);
            }
            awaitQueued();
        }

        /** {@code head} leads: the model takes its group as the group commit must, and sees it start. */
        private void startNext(Req head) throws InterruptedException {
            List<Req> group = new ArrayList<>();
            group.add(head);
            long weight = head.weight;
            while (!head.exclusive() && !pending.isEmpty() && !pending.peekFirst().exclusive()
                    && weight + pending.peekFirst().weight <= MAX_GROUP_WEIGHT) {
                weight += pending.peekFirst().weight;
                group.add(pending.pollFirst());
            }
            running = group;
            List<Req> actual = started.poll(GIVE_UP.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(actual, "no group started; expected " + ids(group));
            assertEquals(ids(group), ids(actual), "the group led");
        }

        /** Every request made so far and the next one: the queued ones leave with the running group. */
        void serve() {
            servedUpTo = nextId + 1;
        }

        void stop() throws InterruptedException {
            stopped = true;
            groupCommit.stop();
            List<Req> failed = new ArrayList<>(pending);
            pending.clear();
            for (Req r : failed) {
                settle(r, Outcome.STOPPED);
            }
            awaitQueued();
        }

        private void settle(Req r, Outcome outcome) throws InterruptedException {
            expected.put(r, outcome);
            check(r);
        }

        private void check(Req r) throws InterruptedException {
            assertTrue(r.thread.join(GIVE_UP), "request " + r.id + " never returned");
            Outcome outcome = expected.remove(r);
            assertTrue(r.isSettled(), "request " + r.id);
            switch (outcome) {
                case SUCCEEDED -> {
                    assertNull(r.failure(), "request " + r.id);
                    assertEquals(r.id, r.result());
                }
                case SERVED -> {
                    assertNull(r.failure(), "request " + r.id);
                    assertEquals(0, r.result());
                }
                case STOPPED, UNSETTLED -> {
                    assertTrue(r.failure() instanceof IllegalStateException
                            && r.failure() != thrownByLeader, "request " + r.id + ": " + r.failure());
                    assertEquals(outcome == Outcome.STOPPED, r.failure().getMessage().contains("stopped"));
                }
                case THROWN -> assertSame(thrownByLeader, r.failure(), "request " + r.id);
            }
            assertTrue(r.thrown == null || (outcome == Outcome.THROWN && r.thrown == thrownByLeader),
                    "request " + r.id + " threw " + r.thrown);
        }

        private void awaitQueued() {
            long deadline = System.nanoTime() + GIVE_UP.toNanos();
            while (groupCommit.queued() != pending.size()) {
                assertTrue(System.nanoTime() < deadline,
                        groupCommit.queued() + " queued; the model has " + ids(List.copyOf(pending)));
                Thread.onSpinWait();
            }
        }

        private static List<Integer> ids(List<Req> group) {
            return group.stream().map(r -> r.id).toList();
        }
    }

    @Property(tries = 150)
    void everyGroupAndOutcomeIsTheModels(@ForAll("ops") List<Op> ops) throws InterruptedException {
        Run run = new Run();
        for (Op op : ops) {
            switch (op) {
                case ENTER_LIGHT -> run.enter(false, 1);
                case ENTER_HEAVY -> run.enter(false, 2);
                case ENTER_EXCLUSIVE -> run.enter(true, 0);
                case SUCCEED, LEAVE_LAST_UNSETTLED, THROW -> {
                    if (run.running != null) {
                        Req head = run.running.getFirst();
                        run.end(Ending.valueOf(op.name()));
                        if (op == Op.THROW) {
                            assertSame(run.thrownByLeader, head.thrown, "the leader's caller gets what it threw");
                        }
                    }
                }
                case SERVE -> run.serve();
                case STOP -> run.stop();
            }
            assertEquals(run.pending.size(), run.groupCommit.queued());
        }
        run.stop();
        if (run.running != null) {
            run.end(Ending.SUCCEED);
        }
        assertTrue(run.expected.isEmpty(), "outcomes never seen: " + run.expected);
        assertTrue(run.started.isEmpty(), "a group the model did not expect: " + run.started);
    }
}
