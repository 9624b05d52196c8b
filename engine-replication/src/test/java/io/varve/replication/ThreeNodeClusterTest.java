package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.option.NodeOptions;
import io.varve.base.LoopbackPorts;
import io.varve.raftlog.RaftLogOptions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three SOFAJRaft nodes in this JVM on loopback, each a "process" with its own shared engine and the Varve
 * service factory: a leader is elected, 100 tasks are applied by all three in order; the leader stops, a new
 * one is elected among the other two and its writes are applied. Everything waits on futures; the timeouts
 * only detect hangs.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ThreeNodeClusterTest {
    private static final String GROUP = "smoke";
    private static final long WAIT_SECONDS = 30;

    @TempDir
    Path dir;

    private final List<Member> members = new ArrayList<>();

    /** Records applied payloads; completes {@code applied} once it has seen {@code expected} of them. */
    static final class RecordingStateMachine extends StateMachineAdapter {
        final List<String> applied = new CopyOnWriteArrayList<>();
        final CompletableFuture<Long> leaderStarted = new CompletableFuture<>();
        private volatile int expected = Integer.MAX_VALUE;
        private volatile CompletableFuture<Void> reached = new CompletableFuture<>();

        /** A future completed once {@code count} payloads in total have been applied. */
        synchronized CompletableFuture<Void> awaitApplied(int count) {
            reached = new CompletableFuture<>();
            expected = count;
            if (applied.size() >= count) {
                reached.complete(null);
            }
            return reached;
        }

        @Override
        public void onApply(Iterator iter) {
            while (iter.hasNext()) {
                ByteBuffer data = iter.getData();
                byte[] bytes = new byte[data.remaining()];
                data.get(bytes);
                applied.add(new String(bytes, StandardCharsets.UTF_8));
                if (iter.done() != null) {
                    iter.done().run(Status.OK());
                }
                iter.next();
            }
            synchronized (this) {
                if (applied.size() >= expected) {
                    reached.complete(null);
                }
            }
        }

        @Override
        public void onLeaderStart(long term) {
            leaderStarted.complete(term);
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

    private static Member leaderAmong(List<Member> candidates) throws Exception {
        CompletableFuture<Object> any = CompletableFuture.anyOf(
                candidates.stream().map(m -> m.fsm().leaderStarted).toArray(CompletableFuture[]::new));
        any.get(WAIT_SECONDS, TimeUnit.SECONDS);
        return candidates.stream().filter(m -> m.fsm().leaderStarted.isDone()).findFirst().orElseThrow();
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

        Member leader = leaderAmong(members);
        List<String> expected = new ArrayList<>();
        List<CompletableFuture<Status>> acks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            String payload = "task-" + i;
            expected.add(payload);
            acks.add(apply(leader.node(), payload));
        }
        for (CompletableFuture<Status> ack : acks) {
            Status status = ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertTrue(status.isOk(), status.toString());
        }
        for (Member m : members) {
            m.fsm().awaitApplied(100).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals(expected, m.fsm().applied, "applied by " + m.peer());
        }
        assertTrue(leader.log().engine().stats().batchesWritten() > 0, "the leader's log went to its engine");

        leader.service().shutdown();
        leader.service().join();
        List<Member> rest = members.stream().filter(m -> m != leader).toList();
        Member next = leaderAmong(rest);
        assertNotEquals(leader.peer(), next.peer());
        Status status = apply(next.node(), "after-failover").get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(status.isOk(), status.toString());
        expected.add("after-failover");
        for (Member m : rest) {
            m.fsm().awaitApplied(101).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals(expected, m.fsm().applied, "applied by " + m.peer());
        }
        assertNotNull(next.node().getLeaderId());
        assertEquals(next.peer(), next.node().getLeaderId());
    }
}
