package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.option.NodeOptions;
import io.varve.base.LoopbackPorts;
import io.varve.raftlog.RaftLogOptions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three SOFAJRaft nodes in this JVM on loopback, each a "process" with its own shared engine and the Varve
 * service factory: a leader is elected, 100 tasks are applied by all three in the same order; the leader stops,
 * a new one is elected among the other two and its writes are applied. Everything waits on futures or bounded
 * polls; the timeouts only detect hangs.
 *
 * <p>Leadership may move at any time (a stall longer than the election timeout), so tasks go to the leader of
 * the moment, and a task Raft turns away for leadership is applied again on the next one. Such a task may have
 * been proposed and still commit, so a member can apply it twice: the test checks that every member applies the
 * same sequence, and that the sequence without repeats is the submitted one.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ThreeNodeClusterTest {
    private static final String GROUP = "smoke";
    private static final long WAIT_SECONDS = 30;
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final String MARKER = "marker-";

    @TempDir
    Path dir;

    private final List<Member> members = new ArrayList<>();
    private int markers;

    /** Records applied payloads, in order, and completes a future per payload once it is applied. */
    static final class RecordingStateMachine extends StateMachineAdapter {
        final List<String> applied = new CopyOnWriteArrayList<>();
        private final Map<String, CompletableFuture<Void>> seen = new ConcurrentHashMap<>();

        /** Completes once {@code payload} has been applied. */
        CompletableFuture<Void> awaitApplied(String payload) {
            return seen.computeIfAbsent(payload, p -> new CompletableFuture<>());
        }

        /** The payloads applied up to and including {@code payload}'s first application. */
        List<String> appliedThrough(String payload) throws Exception {
            awaitApplied(payload).get(WAIT_SECONDS, TimeUnit.SECONDS);
            return List.copyOf(applied.subList(0, applied.indexOf(payload) + 1));
        }

        @Override
        public void onApply(Iterator iter) {
            while (iter.hasNext()) {
                // A view: the buffer is the log entry's own, which the leader still sends to followers that
                // lag behind, so reading it must not move its position (they would receive it empty).
                ByteBuffer data = iter.getData().duplicate();
                byte[] bytes = new byte[data.remaining()];
                data.get(bytes);
                String payload = new String(bytes, StandardCharsets.UTF_8);
                applied.add(payload);
                awaitApplied(payload).complete(null);
                if (iter.done() != null) {
                    iter.done().run(Status.OK());
                }
                iter.next();
            }
        }
    }

    record Member(PeerId peer, SharedRaftLog log, RaftGroupService service, Node node,
            RecordingStateMachine fsm) {
    }


    private Member start(PeerId peer, Configuration conf) throws IOException {
        Path home = dir.resolve("node-" + peer.getPort());
        SharedRaftLog log = SharedRaftLog.open(home.resolve("raftlog"), RaftLogOptions.defaults());
        RecordingStateMachine fsm = new RecordingStateMachine();
        NodeOptions options = new NodeOptions();
        options.setElectionTimeoutMs(1000);
        options.setDisableCli(true);
        options.setInitialConf(conf);
        options.setFsm(fsm);
        options.setServiceFactory(log.serviceFactory());
        options.setLogUri(GROUP + "/log");
        options.setRaftMetaUri(GROUP + "/meta");
        options.setSnapshotUri(home.resolve("snapshot").toString());
        RaftGroupService service = new RaftGroupService(GROUP, peer, options);
        Node node = service.start();
        Member m = new Member(peer, log, service, node, fsm);
        members.add(m);
        return m;
    }

    @AfterEach
    void stopAll() throws Exception {
        for (Member m : members) {
            m.service().shutdown();
        }
        for (Member m : members) {
            m.service().join();
            m.log().close();
        }
    }

    private static CompletableFuture<Status> apply(Node leader, String payload) {
        CompletableFuture<Status> done = new CompletableFuture<>();
        leader.apply(new Task(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)), done::complete));
        return done;
    }

    /** The candidate that is leader now, polled; the deadline only detects a hang. */
    private static Member awaitLeader(List<Member> candidates) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            for (Member m : candidates) {
                if (m.node().isLeader()) {
                    return m;
                }
            }
            assertFalse(System.nanoTime() - deadline > 0, "no leader among " + candidates.size() + " members");
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * Raft turned the task away for leadership: refused before proposing it (EPERM "Is not leader", EBUSY) or
     * proposed and dropped when its leader stepped down (EPERM, outcome unknown).
     */
    private static boolean leadershipChanging(Status status) {
        return status.getRaftError() == RaftError.EPERM || status.getRaftError() == RaftError.EBUSY;
    }

    /**
     * Applies {@code payloads} on the leader of the moment, pipelined, and the ones turned away for leadership
     * again, in order, on the next leader, until each is acknowledged once. The acknowledged ones are a prefix
     * of each round (jraft commits and acknowledges in order), so the payloads' first applications keep the
     * submitted order even when a dropped one committed after all.
     */
    private static void applyAll(List<Member> candidates, List<String> payloads) throws Exception {
        List<String> pending = payloads;
        while (!pending.isEmpty()) {
            Node leader = awaitLeader(candidates).node();
            List<CompletableFuture<Status>> acks = new ArrayList<>();
            for (String payload : pending) {
                acks.add(apply(leader, payload));
            }
            List<String> turnedAway = new ArrayList<>();
            for (int i = 0; i < acks.size(); i++) {
                Status status = acks.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS);
                if (!status.isOk()) {
                    assertTrue(leadershipChanging(status), status.toString());
                    turnedAway.add(pending.get(i));
                }
            }
            pending = turnedAway;
        }
    }

    /**
     * Commits a payload no one else uses and returns it: once it is applied, so is everything committed before
     * it, and nothing proposed before it can commit after it (a later leader's log holds it). A marker turned
     * away is replaced by a new one (it may commit too; markers are left out when payloads are compared).
     */
    private String commitMarker(List<Member> candidates) throws Exception {
        while (true) {
            String marker = MARKER + markers++;
            Status status = apply(awaitLeader(candidates).node(), marker).get(WAIT_SECONDS, TimeUnit.SECONDS);
            if (status.isOk()) {
                return marker;
            }
            assertTrue(leadershipChanging(status), status.toString());
        }
    }

    /** Every candidate applied the same sequence up to {@code marker}; returns it without repeats or markers. */
    private static List<String> sameSequenceOnEach(List<Member> candidates, String marker) throws Exception {
        List<String> first = candidates.getFirst().fsm().appliedThrough(marker);
        for (Member m : candidates) {
            assertEquals(first, m.fsm().appliedThrough(marker), "applied by " + m.peer());
        }
        LinkedHashSet<String> distinct = new LinkedHashSet<>(first);
        distinct.removeIf(p -> p.startsWith(MARKER));
        return List.copyOf(distinct);
    }

    @Test
    void replicatesInOrderAndFailsOver() throws Exception {
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(new PeerId("127.0.0.1", LoopbackPorts.next()));
        }
        Configuration conf = new Configuration(peers);
        for (PeerId peer : peers) {
            start(peer, conf);
        }

        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add("task-" + i);
        }
        applyAll(members, expected);
        assertEquals(expected, sameSequenceOnEach(members, commitMarker(members)));
        for (Member m : members) {
            assertTrue(m.log().engine().stats().batchesWritten() > 0, "the log of " + m.peer() + " went to its engine");
        }

        Member stopped = awaitLeader(members);
        stopped.service().shutdown();
        stopped.service().join();
        List<Member> rest = members.stream().filter(m -> m != stopped).toList();
        applyAll(rest, List.of("after-failover"));
        expected.add("after-failover");
        assertEquals(expected, sameSequenceOnEach(rest, commitMarker(rest)));
    }
}
