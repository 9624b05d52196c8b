package io.varve.server;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Three replicated servers in one JVM, driven by Lettuce as a client would drive them. */
class ReplicatedServerTest {

    @Test
    void writesOnTheLeaderSurviveItsLoss(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            int leader = cluster.awaitLeader(-1);
            Map<String, String> expected = new TreeMap<>();
            try (Lettuce client = Lettuce.connect(cluster.clientPorts[leader], ProtocolVersion.RESP2)) {
                RedisCommands<String, String> c = client.sync();
                for (int i = 0; i < 40; i++) {
                    int n = i;
                    ReplicatedCluster.retrying(() -> c.set("key:" + n, "value-" + n));
                    expected.put("key:" + i, "value-" + i);
                }
                c.hset("hash", Map.of("a", "1", "b", "2"));
                c.rpush("list", "x", "y", "z");
                c.sadd("set", "1", "2", "3", "4", "5", "6", "7", "8");
                c.spop("set", 3); // members chosen on the leader; replicas apply the deletes it chose
                c.incrbyfloat("float", 1.1);
                c.incr("counter");
            }
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                cluster.awaitCaughtUp(i, leader);
            }
            Map<String, String> leaderRecords = cluster.scan(leader);
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                assertEquals(leaderRecords, cluster.scan(i), "replica " + i + " equals the leader");
            }

            cluster.stop(leader);
            int next = cluster.awaitLeader(leader);
            try (Lettuce client = Lettuce.connect(cluster.clientPorts[next], ProtocolVersion.RESP2)) {
                RedisCommands<String, String> c = client.sync();
                for (Map.Entry<String, String> e : expected.entrySet()) {
                    assertEquals(e.getValue(), ReplicatedCluster.retrying(() -> c.get(e.getKey())));
                }
                assertEquals(Map.of("a", "1", "b", "2"), c.hgetall("hash"));
                assertEquals(List.of("x", "y", "z"), c.lrange("list", 0, -1));
                assertEquals(5, c.scard("set"));
                assertEquals("1.1", c.get("float"));
                assertEquals(2L, ReplicatedCluster.retrying(() -> c.incr("counter")));
                c.set("after-failover", "yes");
            }

            cluster.start(leader);
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                cluster.awaitCaughtUp(i, next);
            }
            Map<String, String> nextRecords = cluster.scan(next);
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                assertEquals(nextRecords, cluster.scan(i), "replica " + i + " after the old leader returned");
            }
        }
    }

    @Test
    void followersRedirectToTheLeadersClientAddress(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            int leader = cluster.awaitLeader(-1);
            int follower = (leader + 1) % ReplicatedCluster.SIZE;
            String leaderClient = "127.0.0.1:" + cluster.clientPorts[leader];
            try (Lettuce l = Lettuce.connect(cluster.clientPorts[leader], ProtocolVersion.RESP2)) {
                ReplicatedCluster.retrying(() -> l.sync().set("foo", "bar"));
            }
            cluster.awaitCaughtUp(follower, leader);
            try (Lettuce f = Lettuce.connect(cluster.clientPorts[follower], ProtocolVersion.RESP2)) {
                RedisCommands<String, String> c = f.sync();
                // Redis Cluster's slot of "foo" is 12182; a hash tag picks the slot of the tag alone.
                assertEquals("MOVED 12182 " + leaderClient,
                        assertThrows(RedisCommandExecutionException.class, () -> c.set("foo", "baz")).getMessage());
                assertEquals("MOVED 12182 " + leaderClient,
                        assertThrows(RedisCommandExecutionException.class, () -> c.get("foo")).getMessage());
                assertEquals("MOVED 2515 " + leaderClient,
                        assertThrows(RedisCommandExecutionException.class, () -> c.del("x{hash_tag}")).getMessage());
                assertTrue(assertThrows(RedisCommandExecutionException.class, c::flushall).getMessage()
                        .startsWith("READONLY"));
                assertEquals("PONG", c.ping());
                assertEquals("OK", c.readOnly());
                assertEquals("bar", c.get("foo"), "READONLY lets a replica answer reads");
                assertEquals("MOVED 12182 " + leaderClient,
                        assertThrows(RedisCommandExecutionException.class, () -> c.set("foo", "baz")).getMessage(),
                        "but never writes");
                assertEquals("OK", c.readWrite());
                assertThrows(RedisCommandExecutionException.class, () -> c.get("foo"));
            }
            // A cluster client seeded with a follower learns from CLUSTER NODES that the leader serves every slot.
            RedisClusterClient clusterClient = RedisClusterClient.create(
                    RedisURI.create("127.0.0.1", cluster.clientPorts[follower]));
            try (StatefulRedisClusterConnection<String, String> connection = clusterClient.connect()) {
                connection.sync().set("{user}:name", "ada");
                assertEquals("ada", connection.sync().get("{user}:name"));
                assertEquals(Set.of(leaderClient), connection.getPartitions().stream()
                        .filter(n -> n.getSlots().size() == 16384)
                        .map(n -> n.getUri().getHost() + ":" + n.getUri().getPort()).collect(Collectors.toSet()));
            } finally {
                clusterClient.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void infoReplicationNamesRolesLeaderAndIndexes(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            int leader = cluster.awaitLeader(-1);
            int follower = (leader + 2) % ReplicatedCluster.SIZE;
            try (Lettuce l = Lettuce.connect(cluster.clientPorts[leader], ProtocolVersion.RESP2)) {
                ReplicatedCluster.retrying(() -> l.sync().set("k", "v"));
                Map<String, String> info = parse(l.sync().info("replication"));
                assertEquals("master", info.get("role"));
                assertEquals("leader", info.get("raft_role"));
                assertEquals("127.0.0.1:" + cluster.clientPorts[leader], info.get("raft_leader_client_address"));
                assertTrue(Long.parseLong(info.get("raft_term")) >= 1);
                assertTrue(Long.parseLong(info.get("raft_applied_index")) >= 1);
                assertTrue(Long.parseLong(info.get("raft_commit_index"))
                        >= Long.parseLong(info.get("raft_applied_index")));
                assertEquals(3, info.get("raft_peers").split(",").length);
                for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                    assertTrue(info.get("raft_peers").contains(cluster.raftAddress(i) + "/127.0.0.1:"
                            + cluster.clientPorts[i]), info.get("raft_peers"));
                }
            }
            cluster.awaitCaughtUp(follower, leader);
            try (Lettuce f = Lettuce.connect(cluster.clientPorts[follower], ProtocolVersion.RESP2)) {
                Map<String, String> info = parse(f.sync().info("replication"));
                assertEquals("slave", info.get("role"));
                assertEquals("follower", info.get("raft_role"));
                assertEquals("127.0.0.1", info.get("master_host"));
                assertEquals(Integer.toString(cluster.clientPorts[leader]), info.get("master_port"));
                assertEquals("up", info.get("master_link_status"));
            }
        }
    }

    @Test
    void expiryDeadlinesAreTheLeadersOnEveryReplica(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            int leader = cluster.awaitLeader(-1);
            try (Lettuce l = Lettuce.connect(cluster.clientPorts[leader], ProtocolVersion.RESP2)) {
                RedisCommands<String, String> c = l.sync();
                ReplicatedCluster.retrying(() -> c.set("session", "s", SetArgs.Builder.ex(100)));
                c.set("kept", "k");
                c.set("token", "t");
                c.expire("token", Duration.ofSeconds(50)); // a relative TTL, made absolute by the leader
            }
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                cluster.awaitCaughtUp(i, leader);
            }
            Map<String, String> leaderRecords = cluster.scan(leader);
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                assertEquals(leaderRecords, cluster.scan(i), "same metadata, so the same deadline, on replica " + i);
            }

            cluster.clock.addAndGet(101_000);
            // Only the leader sweeps, and its deletes go through the log: every replica loses the two keys.
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                int replica = i;
                ReplicatedCluster.await(() -> cluster.scan(replica).size() == 1, "expired keys swept on " + i);
            }
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                try (Lettuce r = Lettuce.connect(cluster.clientPorts[i], ProtocolVersion.RESP2)) {
                    r.sync().readOnly();
                    assertNull(r.sync().get("session"));
                    assertEquals("k", r.sync().get("kept"));
                }
            }
        }
    }

    static Map<String, String> parse(String info) {
        Map<String, String> fields = new TreeMap<>();
        for (String line : info.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return fields;
    }
}
