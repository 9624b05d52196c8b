package io.varve.server;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.varve.testsupport.RaftProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The leader cut off from both followers by the proxies between the members: the majority elects a new
 * leader and takes writes, the old leader acknowledges none, and once the network heals all three replicas
 * hold the same records.
 */
class ReplicatedPartitionTest {

    @Test
    void anIsolatedLeaderAcknowledgesNothingAndRejoins(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, true)) {
            int old = cluster.awaitLeader(-1);
            try (Lettuce l = Lettuce.connect(cluster.clientPorts[old], ProtocolVersion.RESP2)) {
                for (int i = 0; i < 20; i++) {
                    int n = i;
                    ReplicatedCluster.retrying(() -> l.sync().set("before:" + n, "v" + n));
                }
            }

            cluster.proxies[old].dropAll();
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                if (i != old) {
                    cluster.proxies[i].dropFrom(cluster.raftAddress(old));
                }
            }
            int next = cluster.awaitLeader(old);
            assertNotEquals(old, next);
            try (Lettuce n = Lettuce.connect(cluster.clientPorts[next], ProtocolVersion.RESP2)) {
                for (int i = 0; i < 20; i++) {
                    int k = i;
                    ReplicatedCluster.retrying(() -> n.sync().set("during:" + k, "v" + k));
                }
            }
            try (Lettuce l = Lettuce.connect(cluster.clientPorts[old], ProtocolVersion.RESP2)) {
                // Refused (MOVED, CLUSTERDOWN, TRYAGAIN) or of unknown outcome: never OK.
                RedisException refused = assertThrows(RedisException.class, () -> l.sync().set("lost", "x"));
                assertNotEquals(null, refused.getMessage());
            }

            for (RaftProxy proxy : cluster.proxies) {
                proxy.heal();
            }
            ReplicatedCluster.await(() -> !cluster.isLeader(old), "the old leader stepping down");
            int leader = cluster.awaitLeader(-1);
            try (Lettuce c = Lettuce.connect(cluster.clientPorts[leader], ProtocolVersion.RESP2)) {
                RedisCommands<String, String> sync = c.sync();
                ReplicatedCluster.retrying(() -> sync.set("after", "healed"));
                assertNull(sync.get("lost"), "the isolated leader's write never committed");
                assertEquals("v19", sync.get("during:19"));
                assertEquals("v0", sync.get("before:0"));
            }
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                cluster.awaitCaughtUp(i, leader);
            }
            Map<String, String> records = cluster.scan(leader);
            assertEquals(41, records.size());
            for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                assertEquals(cluster.checksum(leader), cluster.checksum(i), "replica " + i);
                assertEquals(records, cluster.scan(i), "replica " + i);
            }
        }
    }
}
