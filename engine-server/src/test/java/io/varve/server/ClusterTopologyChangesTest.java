package io.varve.server;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Slot moves and a group split while Lettuce's {@link RedisClusterClient} writes keys of every slot: the
 * client follows the MOVED answers by itself and retries the TRYAGAIN ones (Lettuce hands TRYAGAIN to the
 * application, as redis-py retries it itself); afterwards every acknowledged write is readable through the
 * cluster, every node serves the same map at the same epoch, and each group's gate accepts exactly the
 * slots the map gives it.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterTopologyChangesTest {

    private static final int GROUPS = 3;

    @Test
    void everyAcknowledgedWriteSurvivesSlotMovesAndASplitUnderLoad(@TempDir Path dir) throws Exception {
        try (ClusterNodes cluster = ClusterNodes.start(dir, GROUPS)) {
            ReplicatedCluster.await(() -> everyGroupLed(cluster, GROUPS, 1), "leaders of the seeded groups");
            RedisClusterClient client = clusterClient(cluster.clientPorts[0]);
            Queue<Integer> acknowledged = new ConcurrentLinkedQueue<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> writerFailed = new AtomicReference<>();
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                RedisAdvancedClusterCommands<String, String> redis = connection.sync();
                Thread writer = ClusterUnderTest.writer(client, redis, stop, acknowledged, writerFailed);
                ReplicatedCluster.await(() -> acknowledged.size() >= 100 || writerFailed.get() != null,
                        "writes before the changes");
                try (RespClient admin = RespClient.connect(cluster.clientPorts[1])) {
                    // From the seeded 0-5461 / 5462-10922 / 10923-16383:
                    assertEquals("OK", admin.call("VARVE", "CLUSTER", "MOVESLOTS", "0", "999", "2"));
                    awaitWrites(acknowledged, writerFailed, 50);
                    assertEquals("OK", admin.call("VARVE", "CLUSTER", "SPLIT", "1"));
                    awaitWrites(acknowledged, writerFailed, 50);
                    assertEquals("OK", admin.call("VARVE", "CLUSTER", "MOVESLOTS", "500", "699", "0"));
                    awaitWrites(acknowledged, writerFailed, 50);
                }
                stop.set(true);
                writer.join();
                assertNull(writerFailed.get(), () -> "the writer failed: " + writerFailed.get());

                // Three changes of three epochs each, from epoch 1; every node serves the same map.
                Map<Integer, String> expected = Map.of(
                        0, "500-699+1000-5461",
                        1, "5462-8191",
                        2, "0-499+700-999+10923-16383",
                        3, "8192-10922");
                ReplicatedCluster.await(() -> settled(cluster, 10, expected), "every node at epoch 10");
                ClusterUnderTest.assertAcknowledgedReadable(client, redis, acknowledged);
                assertEquals(4, redis.clusterShards().size());
            } finally {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    /** Waits for {@code more} acknowledged writes after now (the changes ran under load). */
    private static void awaitWrites(Queue<Integer> acknowledged, AtomicReference<Throwable> failed, int more)
            throws TimeoutException {
        int target = acknowledged.size() + more;
        ReplicatedCluster.await(() -> acknowledged.size() >= target || failed.get() != null, "writes");
    }

    /** Every group of {@code groups} has a leader, as node 0 sees it, and each node leads {@code each}. */
    static boolean everyGroupLed(ClusterNodes cluster, int groups, int each) {
        for (int i = 0; i < ClusterNodes.SIZE; i++) {
            if (cluster.groupsLed(i) != each) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether every node serves epoch {@code epoch} with no change running, each group owning and accepting
     * exactly its {@code expected} ranges.
     */
    static boolean settled(ClusterNodes cluster, long epoch, Map<Integer, String> expected) {
        for (int i = 0; i < ClusterNodes.SIZE; i++) {
            Map<String, Object> info = cluster.replication(i);
            if (((Number) info.get("cluster_epoch")).longValue() != epoch
                    || !"none".equals(info.get("cluster_slot_change"))) {
                return false;
            }
            for (Map.Entry<Integer, String> group : expected.entrySet()) {
                String line = String.valueOf(info.get("raft_group_" + group.getKey()));
                if (!line.contains(",slots=" + group.getValue() + ",")
                        || !line.contains(",accepts=" + group.getValue() + ",")) {
                    return false;
                }
            }
        }
        return true;
    }

    static RedisClusterClient clusterClient(int seedPort) {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.builder().withHost("127.0.0.1")
                .withPort(seedPort).withTimeout(Duration.ofSeconds(10)).build());
        client.setOptions(ClusterClientOptions.builder()
                .protocolVersion(ProtocolVersion.RESP2)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers().build())
                .build());
        return client;
    }
}
