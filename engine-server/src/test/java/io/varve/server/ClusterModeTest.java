package io.varve.server;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ProtocolVersion;
import io.varve.server.command.KeySlot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.varve.server.ClusterUnderTest.retrying;
import static io.varve.server.ReplicatedCluster.retrying;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cluster mode end to end: three nodes in this JVM, six Raft groups splitting the slots, driven by Lettuce's
 * {@link RedisClusterClient}, which routes each command by the CLUSTER NODES the nodes report and follows
 * their MOVED redirects.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterModeTest {

    private static final int GROUPS = 6;
    private static final RespClient.Err CROSS_SLOT =
            new RespClient.Err("CROSSSLOT Keys in request don't hash to the same slot");
    private static final RespClient.Err EXEC_ABORT =
            new RespClient.Err("EXECABORT Transaction discarded because of previous errors.");

    @Test
    void commandsRouteToTheLeaderOfTheirSlotsGroupAndStayWithinOneSlot(@TempDir Path dir) throws Exception {
        try (ClusterNodes cluster = ClusterNodes.start(dir, GROUPS)) {
            cluster.awaitBalanced();
            RedisClusterClient client = cluster.clusterClient(true);
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                RedisAdvancedClusterCommands<String, String> redis = connection.sync();
                // Every node masters the ranges of the two groups it leads.
                Set<String> masters = new TreeSet<>();
                int slots = 0;
                for (RedisClusterNode node : connection.getPartitions()) {
                    if (!node.getSlots().isEmpty()) {
                        masters.add(node.getUri().getPort() + "");
                        slots += node.getSlots().size();
                    }
                }
                assertEquals(3, masters.size(), "every node leads some groups");
                assertEquals(KeySlot.SLOTS, slots);

                // A mixed workload across all slots. A group electing a leader meanwhile (a heartbeat late on a
                // loaded machine) answers CLUSTERDOWN or TRYAGAIN before running anything, so those are retried.
                for (int i = 0; i < 120; i++) {
                    int n = i;
                    assertEquals("OK", retrying(() -> redis.set("key:" + n, "v" + n)));
                    retrying(() -> redis.hset("hash:" + n, Map.of("f", "x" + n, "g", "y")));
                    retrying(() -> redis.rpush("list:" + n, "a", "b", "c" + n));
                    retrying(() -> redis.sadd("set:" + n, "m" + n, "n"));
                    retrying(() -> redis.zadd("zset:" + n, n, "member"));
                    retrying(() -> redis.incr("counter:" + (n % 7)));
                }
                for (int i = 0; i < 120; i++) {
                    assertEquals("v" + i, redis.get("key:" + i));
                    assertEquals("x" + i, redis.hget("hash:" + i, "f"));
                    assertEquals(List.of("a", "b", "c" + i), redis.lrange("list:" + i, 0, -1));
                    assertEquals(Set.of("m" + i, "n"), redis.smembers("set:" + i));
                    assertEquals((double) i, redis.zscore("zset:" + i, "member"));
                }
                assertEquals("18", redis.get("counter:0"));
                // Keys of one slot (a hash tag) in one command; keys of several are refused.
                assertEquals("OK", redis.mset(Map.of("{user:1}:name", "ada", "{user:1}:lang", "en")));
                assertEquals(List.of("ada", "en"), redis.mget("{user:1}:name", "{user:1}:lang").stream()
                        .map(kv -> kv.getValue()).toList());
                int slot = KeySlot.of("{user:1}".getBytes(StandardCharsets.UTF_8));
                assertEquals(slot, redis.clusterKeyslot("{user:1}:name").intValue());
                int owner = masterOf(connection, slot);
                try (Lettuce plain = Lettuce.connect(owner, ProtocolVersion.RESP2)) {
                    RedisCommands<String, String> node = plain.sync();
                    assertEquals(2L, node.clusterCountKeysInSlot(slot));
                    assertEquals(List.of("{user:1}:lang", "{user:1}:name"),
                            node.clusterGetKeysInSlot(slot, 10).stream().sorted().toList());
                    RedisCommandExecutionException crossSlot = assertThrows(RedisCommandExecutionException.class,
                            () -> node.mset(Map.of("{user:1}:a", "1", "{user:2}:b", "2")));
                    assertEquals("CROSSSLOT Keys in request don't hash to the same slot", crossSlot.getMessage());
                }
                try (RespClient node = RespClient.connect(owner)) {
                    // A transaction within one slot runs; one reaching another slot is refused and aborts.
                    assertEquals("OK", node.call("MULTI"));
                    assertEquals("QUEUED", node.call("SET", "{user:1}:name", "grace"));
                    assertEquals("QUEUED", node.call("APPEND", "{user:1}:name", "!"));
                    assertEquals(List.of("OK", 6L), node.call("EXEC"));
                    assertEquals("OK", node.call("MULTI"));
                    assertEquals("QUEUED", node.call("SET", "{user:1}:name", "lost"));
                    assertEquals(CROSS_SLOT, node.call("SET", "{user:2}:b", "2"));
                    assertEquals(EXEC_ABORT, node.call("EXEC"));
                    assertEquals("grace!", node.call("GET", "{user:1}:name"));
                    // WATCH ties the transaction to its slot too; after EXEC the tie is gone.
                    assertEquals("OK", node.call("WATCH", "{user:1}:name"));
                    assertEquals("OK", node.call("MULTI"));
                    assertEquals(CROSS_SLOT, node.call("GET", "{user:2}:b"));
                    assertEquals(EXEC_ABORT, node.call("EXEC"));
                    assertEquals("OK", node.call("WATCH", "{user:1}:name"));
                    assertEquals("OK", node.call("MULTI"));
                    assertEquals("QUEUED", node.call("GET", "{user:1}:name"));
                    assertEquals(List.of("grace!"), node.call("EXEC"));
                }
                // A node not leading the slot's group redirects to the one that does.
                int other = otherThan(cluster, owner);
                try (Lettuce plain = Lettuce.connect(other, ProtocolVersion.RESP2)) {
                    RedisCommandExecutionException moved = assertThrows(RedisCommandExecutionException.class,
                            () -> plain.sync().get("{user:1}:name"));
                    assertEquals("MOVED " + slot + " 127.0.0.1:" + owner, moved.getMessage());
                    assertEquals("ok", clusterInfo(plain.sync()).get("cluster_state"));
                    assertEquals(Integer.toString(KeySlot.SLOTS), clusterInfo(plain.sync()).get("cluster_slots_ok"));
                }
                // CLUSTER SLOTS: one entry per group's range, its leader first.
                List<Object> ranges = redis.clusterSlots();
                assertEquals(GROUPS, ranges.size());
            } finally {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void everyAcknowledgedWriteSurvivesANodeStoppedUnderLoad(@TempDir Path dir) throws Exception {
        try (ClusterNodes cluster = ClusterNodes.start(dir, GROUPS)) {
            cluster.awaitBalanced();
            RedisClusterClient client = cluster.clusterClient(true);
            List<Integer> acknowledged = new ArrayList<>();
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                RedisAdvancedClusterCommands<String, String> redis = connection.sync();
                int next = 0;
                for (; next < 150; next++) {
                    write(client, redis, next, acknowledged);
                }
                // Node 1 leads two groups: they fail over to the others while writes go on.
                assertEquals(2, cluster.groupsLed(1));
                cluster.stop(1);
                for (; next < 300; next++) {
                    write(client, redis, next, acknowledged);
                }
                cluster.start(1);
                for (; next < 350; next++) {
                    write(client, redis, next, acknowledged);
                }
                assertEquals(350, acknowledged.size());
                for (int i : acknowledged) {
                    assertEquals("value-" + i, retrying(client, () -> redis.get("key-" + i)), "key-" + i);
                }
                // The returned node caught up: it holds every write (read locally, as a replica may).
                try (Lettuce plain = Lettuce.connect(cluster.clientPorts[1], ProtocolVersion.RESP2)) {
                    plain.sync().readOnly();
                    // A group it leads again answers TRYAGAIN until the new leader has caught up in its term.
                    ReplicatedCluster.await(() -> "value-349".equals(localRead(plain, "key-349")),
                            "catch-up of the returned node");
                    for (int i : acknowledged) {
                        int k = i;
                        assertEquals("value-" + i, ReplicatedCluster.retrying(() -> plain.sync().get("key-" + k)),
                                "key-" + i + " on node 1");
                    }
                    assertNull(ReplicatedCluster.retrying(() -> plain.sync().get("key-350")));
                }
            } finally {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    /** A READONLY read of this node's state, or null while the node answers TRYAGAIN or CLUSTERDOWN. */
    private static String localRead(Lettuce node, String key) {
        try {
            return node.sync().get(key);
        } catch (RedisCommandExecutionException e) {
            String m = String.valueOf(e.getMessage());
            if (m.startsWith("TRYAGAIN") || m.startsWith("CLUSTERDOWN")) {
                return null;
            }
            throw e;
        }
    }

    /** SETs key-i, again after errors (a failover in progress) until acknowledged; records the acknowledgement. */
    private static void write(RedisClusterClient client, RedisAdvancedClusterCommands<String, String> redis, int i,
                              List<Integer> acknowledged) throws TimeoutException {
        assertEquals("OK", retrying(client, () -> redis.set("key-" + i, "value-" + i)));
        acknowledged.add(i);
    }

    private static int masterOf(StatefulRedisClusterConnection<String, String> connection, int slot) {
        return connection.getPartitions().getPartitionBySlot(slot).getUri().getPort();
    }

    private static int otherThan(ClusterNodes cluster, int port) {
        for (int p : cluster.clientPorts) {
            if (p != port) {
                return p;
            }
        }
        throw new AssertionError();
    }

    private static Map<String, String> clusterInfo(RedisCommands<String, String> node) {
        Map<String, String> fields = new java.util.HashMap<>();
        for (String line : node.clusterInfo().split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return fields;
    }
}
