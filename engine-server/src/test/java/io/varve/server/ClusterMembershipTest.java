package io.varve.server;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.varve.base.LoopbackPorts;
import io.varve.server.command.KeySlot;
import io.varve.server.replica.RaftReplica;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLUSTER MEET and CLUSTER FORGET on a running three-node cluster while Lettuce's cluster client writes keys of
 * every slot: a fourth server started with {@code cluster-join yes} is met through a node that may not lead
 * the metadata group, every node (the new one too, also after its restart) then lists it as a master with
 * no slots at the next epoch, the new node redirects keyed commands to the groups' leaders, and once forgotten
 * it is gone from every node's view; the refusals use Redis's words where Redis has them. Every acknowledged
 * write stays readable.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterMembershipTest {

    private static final int GROUPS = 3;

    @Test
    void aNodeMetJoinsEveryNodesTopologyAndIsForgottenWhileWritesGoOn(@TempDir Path dir) throws Exception {
        try (ClusterNodes cluster = ClusterNodes.start(dir, GROUPS)) {
            ReplicatedCluster.await(() -> ClusterTopologyChangesTest.everyGroupLed(cluster, GROUPS, 1),
                    "leaders of the seeded groups");
            ClusterJoiner joiner = new ClusterJoiner(dir.resolve("joiner"));
            joiner.start();
            RedisClusterClient client = ClusterTopologyChangesTest.clusterClient(cluster.clientPorts[0]);
            Queue<Integer> acknowledged = new ConcurrentLinkedQueue<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> writerFailed = new AtomicReference<>();
            try (StatefulRedisClusterConnection<String, String> connection = client.connect();
                 RespClient admin = RespClient.connect(cluster.clientPorts[1])) {
                try (RespClient waiting = RespClient.connect(joiner.clientPort)) {
                    assertEquals(1, nodeLines(waiting).size(), "a joiner knows itself only");
                    assertEquals(new RespClient.Err("CLUSTERDOWN The cluster is down"), waiting.call("SET", "a", "1"));
                }
                RedisAdvancedClusterCommands<String, String> redis = connection.sync();
                Thread writer = ClusterUnderTest.writer(client, redis, stop, acknowledged, writerFailed);
                ClusterUnderTest.awaitWrites(acknowledged, writerFailed, 50);
                long epoch = cluster.epoch(0);

                assertEquals("OK", admin.call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(joiner.clientPort)));
                ReplicatedCluster.await(() -> everyNodeLists(cluster, joiner, 4, epoch + 1), "4 nodes everywhere");
                ClusterUnderTest.awaitWrites(acknowledged, writerFailed, 50);
                assertEquals("OK", admin.call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(joiner.clientPort)),
                        "meeting a node again changes nothing");
                assertEquals(epoch + 1, cluster.epoch(1));
                try (RespClient node = RespClient.connect(cluster.clientPorts[2])) {
                    List<String> lines = nodeLines(node);
                    String joined = lines.stream().filter(l -> l.startsWith(joiner.id)).findFirst().orElseThrow();
                    assertTrue(joined.matches(joiner.id + " 127\\.0\\.0\\.1:" + joiner.clientPort
                            + "@0 master - 0 0 " + (epoch + 1) + " connected"), joined);
                    assertEquals(GROUPS + 1, ((List<?>) node.call("CLUSTER", "SHARDS")).size(),
                            "a shard per group and one, without slots, for the new node");
                }
                try (RespClient joined = RespClient.connect(joiner.clientPort)) {
                    Object moved = joined.call("SET", "key-0", "x");
                    assertInstanceOf(RespClient.Err.class, moved);
                    assertTrue(((RespClient.Err) moved).text().startsWith("MOVED " + KeySlot.of(bytes("key-0")) + " "),
                            moved::toString);
                    assertEquals(GROUPS + 1, ((List<?>) joined.call("CLUSTER", "SHARDS")).size());
                }
                joiner.restart();
                ReplicatedCluster.await(() -> everyNodeLists(cluster, joiner, 4, epoch + 1), "the restarted node");

                String founder = RaftReplica.nodeId("127.0.0.1:" + cluster.raftPorts[0]);
                assertEquals(new RespClient.Err("ERR node " + founder + " still holds replicas of groups 0,1,2; move "
                        + "them to other nodes first"), admin.call("CLUSTER", "FORGET", founder));
                assertEquals(new RespClient.Err("ERR Unknown node 0123456789abcdef"),
                        admin.call("CLUSTER", "FORGET", "0123456789abcdef"));
                assertEquals(new RespClient.Err("ERR I tried hard but I can't forget myself..."),
                        admin.call("CLUSTER", "FORGET", RaftReplica.nodeId("127.0.0.1:" + cluster.raftPorts[1])));
                int closed = closedPort();
                Object unreachable = admin.call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(closed));
                assertInstanceOf(RespClient.Err.class, unreachable);
                assertTrue(((RespClient.Err) unreachable).text().startsWith("ERR node 127.0.0.1:" + closed
                        + " did not answer"), unreachable::toString);
                assertEquals(epoch + 1, cluster.epoch(1), "refusals change nothing");

                try (RespClient other = RespClient.connect(cluster.clientPorts[2])) {
                    assertEquals("OK", other.call("CLUSTER", "FORGET", joiner.id));
                }
                ReplicatedCluster.await(() -> everyNodeLists(cluster, null, 3, epoch + 2), "3 nodes everywhere");
                ClusterUnderTest.awaitWrites(acknowledged, writerFailed, 50);
                stop.set(true);
                writer.join();
                assertNull(writerFailed.get(), () -> "the writer failed: " + writerFailed.get());
                ClusterUnderTest.assertAcknowledgedReadable(client, redis, acknowledged);
            } finally {
                stop.set(true);
                client.shutdown(0, 2, TimeUnit.SECONDS);
                joiner.stop();
            }
        }
    }

    /**
     * Whether every founder, and {@code joiner} if given, lists {@code count} nodes at {@code epoch}, {@code joiner}
     * among them as a master without slots.
     */
    private static boolean everyNodeLists(ClusterNodes cluster, ClusterJoiner joiner, int count, long epoch) {
        int[] ports = joiner == null ? cluster.clientPorts
                : new int[] {cluster.clientPorts[0], cluster.clientPorts[1], cluster.clientPorts[2], joiner.clientPort};
        for (int port : ports) {
            try (RespClient node = RespClient.connect(port)) {
                List<String> lines = nodeLines(node);
                if (lines.size() != count || lines.stream().anyMatch(l -> !l.contains(" " + epoch + " connected"))) {
                    return false;
                }
                if (joiner != null && lines.stream().noneMatch(l -> l.startsWith(joiner.id + " ")
                        && l.endsWith("master - 0 0 " + epoch + " connected"))) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private static List<String> nodeLines(RespClient node) throws IOException {
        Object nodes = node.call("CLUSTER", "NODES");
        if (!(nodes instanceof String text)) {
            return List.of();
        }
        return List.of(text.split("\n"));
    }


    /** A port nothing listens on: below the ephemeral range, so no outgoing connection takes it meanwhile. */
    private static int closedPort() {
        return LoopbackPorts.next();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
