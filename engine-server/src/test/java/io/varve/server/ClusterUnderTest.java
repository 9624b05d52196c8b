package io.varve.server;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.protocol.ProtocolVersion;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Three cluster-mode nodes a test drives, in this JVM ({@link ClusterNodes}) or as server processes
 * ({@link ClusterProcesses}), and what the cluster tests do with either: wait until the balancer has spread
 * the leaders, connect Lettuce's cluster client, and retry a call through a failover.
 */
interface ClusterUnderTest extends AutoCloseable {

    int SIZE = 3;

    /** Starts one node of a cluster. */
    interface NodeStart {
        void start(int node) throws IOException;
    }

    /**
     * Picks free loopback ports for every node (RESP into {@code clientPorts}, Raft into {@code raftPorts}) and
     * returns the {@code raft-peers} list naming them: {@code raft-address/client-address} per node.
     */
    static String allocatePeers(int[] clientPorts, int[] raftPorts) {
        java.util.List<String> entries = new java.util.ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            clientPorts[i] = io.varve.base.LoopbackPorts.next();
            raftPorts[i] = io.varve.base.LoopbackPorts.next();
            entries.add("127.0.0.1:" + raftPorts[i] + "/127.0.0.1:" + clientPorts[i]);
        }
        return String.join(",", entries);
    }

    /** Starts every node of {@code cluster}; if one fails, closes those started and rethrows. */
    static <C extends ClusterUnderTest> C startEach(C cluster, NodeStart node) throws IOException {
        try {
            for (int i = 0; i < SIZE; i++) {
                node.start(i);
            }
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    int groups();

    int clientPort(int node);

    /** How many groups node {@code node} leads now; -1 while it does not answer. */
    int groupsLed(int node);

    /** How long starting and balancing may take before a wait is taken for a hang. */
    Duration settleLimit();

    /**
     * Waits until every group has a leader, each node leads {@code groups / SIZE} (the balancer's spread), and
     * every node's CLUSTER SLOTS names the same leader for every slot. A node learns of another's new leadership
     * only from that leader's next heartbeat, so a client that loads the topology from a node whose view lags
     * would miss the ranges of a group just transferred.
     */
    default void awaitBalanced() throws TimeoutException {
        long deadline = System.nanoTime() + settleLimit().toNanos();
        int each = groups() / SIZE;
        while (true) {
            boolean balanced = true;
            for (int i = 0; i < SIZE && balanced; i++) {
                balanced = groupsLed(i) == each;
            }
            if (balanced) {
                List<String> first = slotLeaders(0);
                balanced = first != null && coversAllSlots(first);
                for (int i = 1; i < SIZE && balanced; i++) {
                    balanced = first.equals(slotLeaders(i));
                }
            }
            if (balanced) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("leaders not spread " + each + " per node, or not known alike to every"
                        + " node, within " + settleLimit());
            }
            // Polling: elections and leadership transfers are visible only through INFO and CLUSTER SLOTS.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /**
     * Node {@code node}'s CLUSTER SLOTS as "first-last@leader-port" per range, sorted; null while the node does
     * not answer.
     */
    default List<String> slotLeaders(int node) {
        try (RespClient client = RespClient.connect(clientPort(node))) {
            List<String> ranges = new ArrayList<>();
            for (Object range : (List<?>) client.call("CLUSTER", "SLOTS")) {
                List<?> fields = (List<?>) range;
                ranges.add(fields.get(0) + "-" + fields.get(1) + "@" + ((List<?>) fields.get(2)).get(1));
            }
            ranges.sort(null);
            return ranges;
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean coversAllSlots(List<String> ranges) {
        long slots = 0;
        for (String range : ranges) {
            String[] bounds = range.substring(0, range.indexOf('@')).split("-");
            slots += Long.parseLong(bounds[1]) - Long.parseLong(bounds[0]) + 1;
        }
        return slots == io.varve.server.command.KeySlot.SLOTS;
    }

    /**
     * Lettuce's cluster client seeded with node 0; with {@code adaptiveRefresh} it reloads the topology on
     * MOVED and on failed reconnects, as a client riding out failovers must.
     */
    default RedisClusterClient clusterClient(boolean adaptiveRefresh) {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.builder().withHost("127.0.0.1")
                .withPort(clientPort(0)).withTimeout(Duration.ofSeconds(10)).build());
        ClusterClientOptions.Builder options = ClusterClientOptions.builder().protocolVersion(ProtocolVersion.RESP2);
        if (adaptiveRefresh) {
            options.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                    .enableAllAdaptiveRefreshTriggers().build());
        }
        client.setOptions(options.build());
        return client;
    }

    /**
     * Runs a call again while it fails (a node down, an election, a redirect to a node that just stopped
     * leading), refreshing the client's view of the cluster between tries; the deadline only detects a hang.
     */
    static <T> T retrying(RedisClusterClient client, Supplier<T> call) throws TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("still failing: " + e);
                }
                client.refreshPartitions();
            }
        }
    }

    /**
     * Starts a thread that SETs key-i to value-i through the cluster client, one after another (each again
     * while it fails, see {@link #retrying}), until {@code stop}; it records each acknowledged i, or the
     * failure that ended it.
     */
    static Thread writer(RedisClusterClient client, RedisAdvancedClusterCommands<String, String> redis,
                         AtomicBoolean stop, Queue<Integer> acknowledged, AtomicReference<Throwable> failed) {
        return Thread.ofPlatform().name("cluster-writer").start(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    int k = i;
                    if (!"OK".equals(retrying(client, () -> redis.set("key-" + k, "value-" + k)))) {
                        throw new AssertionError("SET key-" + k + " was not answered OK");
                    }
                    acknowledged.add(k);
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
    }

    /** Waits until {@link #writer} has recorded {@code more} acknowledged writes, or failed. */
    static void awaitWrites(Queue<Integer> acknowledged, AtomicReference<Throwable> failed, int more)
            throws TimeoutException {
        int target = acknowledged.size() + more;
        ReplicatedCluster.await(() -> acknowledged.size() >= target || failed.get() != null, "writes");
    }

    /** Asserts every write {@link #writer} recorded as acknowledged reads back, through the cluster client. */
    static void assertAcknowledgedReadable(RedisClusterClient client,
                                           RedisAdvancedClusterCommands<String, String> redis,
                                           Iterable<Integer> acknowledged) throws TimeoutException {
        client.refreshPartitions();
        for (int i : acknowledged) {
            org.junit.jupiter.api.Assertions.assertEquals("value-" + i,
                    retrying(client, () -> redis.get("key-" + i)), "key-" + i);
        }
    }

    @Override
    void close();
}
