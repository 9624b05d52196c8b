package io.varve.server;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.varve.base.LinearizabilityChecker;
import io.varve.base.LinearizabilityChecker.Operation;
import io.varve.server.command.KeySlot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.varve.server.ClusterUnderTest.retrying;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black box, cluster mode: three server processes (the program bin/varve runs) with six Raft groups, driven
 * by Lettuce's cluster client while a node leading groups is killed with {@code kill -9} and restarted. Every
 * write the client saw acknowledged is readable through the cluster after failover and on the restarted node;
 * and registers in every group, written and read by concurrent clients through the kill, keep a linearizable
 * history. The tests share the processes; each starts from a balanced cluster. Tagged {@code process}
 * ({@code -DexcludedGroups=process} skips it).
 */
@Tag("process")
@Timeout(value = 400, unit = TimeUnit.SECONDS)
class ClusterProcessesTest {

    private static final int GROUPS = 6;
    private static final int REGISTER_CLIENTS = 3;
    private static final int REGISTER_OPS = 40;

    @TempDir
    static Path dir;
    private static ClusterProcesses nodes;

    @BeforeAll
    static void startNodes() throws Exception {
        nodes = ClusterProcesses.start(dir, GROUPS);
    }

    @AfterAll
    static void stopNodes() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void acknowledgedWritesSurviveKillNineOfANode() throws Exception {
        nodes.awaitBalanced();
        RedisClusterClient cluster = nodes.clusterClient(true);
        try {
            List<RedisFuture<String>> writes = new ArrayList<>();
            CountDownLatch someAcknowledged = new CountDownLatch(40);
            try (StatefulRedisClusterConnection<String, String> connection = cluster.connect()) {
                RedisAdvancedClusterAsyncCommands<String, String> async = connection.async();
                for (int i = 0; i < 200; i++) {
                    RedisFuture<String> f = async.set("key:" + i, "value-" + i);
                    f.thenRun(someAcknowledged::countDown);
                    writes.add(f);
                }
                assertTrue(someAcknowledged.await(240, TimeUnit.SECONDS), () -> "40 writes acknowledged; "
                        + "failures: " + writes.stream().filter(w -> w.state() == Future.State.FAILED)
                        .map(w -> w.exceptionNow().toString()).distinct().limit(3).toList());
                nodes.kill(1); // SIGKILL: no shutdown hook, nothing flushed
                for (RedisFuture<String> f : writes) {
                    f.await(30, TimeUnit.SECONDS); // settled: acknowledged, failed, or timed out
                }
            }
            List<Integer> acknowledged = new ArrayList<>();
            for (int i = 0; i < writes.size(); i++) {
                RedisFuture<String> f = writes.get(i);
                if (f.state() == Future.State.SUCCESS && "OK".equals(f.resultNow())) {
                    acknowledged.add(i);
                }
            }
            assertTrue(acknowledged.size() >= 40, "acknowledged: " + acknowledged.size());

            try (StatefulRedisClusterConnection<String, String> connection = cluster.connect()) {
                for (int i : acknowledged) {
                    assertEquals("value-" + i, retrying(cluster, () -> connection.sync().get("key:" + i)));
                }
                retrying(cluster, () -> connection.sync().set("after", "kill"));
            }

            nodes.start(1);
            nodes.awaitBalanced();
            try (Lettuce back = Lettuce.connect(nodes.clientPort(1), ProtocolVersion.RESP2)) {
                back.sync().readOnly();
                // It leads two groups again, so it applied everything they committed before; a group it
                // leads answers TRYAGAIN until it has caught up in its term.
                assertEquals("kill", ReplicatedCluster.retrying(() -> back.sync().get("after")));
                for (int i : acknowledged) {
                    int k = i;
                    assertEquals("value-" + i, ReplicatedCluster.retrying(() -> back.sync().get("key:" + k)),
                            "key:" + i + " on the restarted node");
                }
            }
        } finally {
            cluster.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /**
     * One register per group; three clients write unique values and read them through the cluster (each
     * read at its key's leader), while the node leading the first register's group is killed half-way and
     * later restarted. The whole history, final reads after the restart included, must be linearizable per
     * key; writes that failed have an unknown outcome, failed reads are left out. The client sends each
     * command at most once (no reconnect, which would replay unanswered commands), so a write the client
     * believes failed cannot land twice.
     */
    @Test
    void registersInEveryGroupStayLinearizableThroughALeadersKillNine() throws Exception {
        nodes.awaitBalanced();
        List<String> keys = oneKeyPerGroup();
        RedisClusterClient cluster = atMostOnceClient();
        Map<String, List<Operation>> history = new ConcurrentHashMap<>();
        try {
            int victim = nodeLeading(cluster, keys.getFirst());
            CountDownLatch halfway = new CountDownLatch(REGISTER_CLIENTS);
            KillMark kill = new KillMark(keys.getFirst());
            RegisterClient[] clients = new RegisterClient[REGISTER_CLIENTS];
            for (int c = 0; c < REGISTER_CLIENTS; c++) {
                clients[c] = new RegisterClient(c, cluster, keys, history, halfway, kill);
                clients[c].thread.start();
            }
            assertTrue(halfway.await(240, TimeUnit.SECONDS), "half of every client's operations done");
            long killedAt = System.nanoTime();
            kill.at = killedAt;
            nodes.kill(victim);
            for (RegisterClient c : clients) {
                c.thread.join();
                assertNull(c.failure, "client " + c.id);
            }
            // The kill is inside the history: the killed leader's register was written after it, elsewhere.
            assertTrue(history.get(keys.getFirst()).stream().anyMatch(op -> op.kind() == LinearizabilityChecker.Kind.WRITE
                    && op.definite() && op.invoke() > killedAt), "a write to the killed leader's group after the kill");

            nodes.start(victim);
            nodes.awaitBalanced();
            try (StatefulRedisClusterConnection<String, String> connection = cluster.connect()) {
                for (String key : keys) {
                    long invoke = System.nanoTime();
                    String value = retrying(cluster, () -> connection.sync().get(key));
                    record(history, key, Operation.read(value, invoke, System.nanoTime()));
                }
            }
            long definite = history.values().stream().flatMap(List::stream).filter(Operation::definite).count();
            assertTrue(definite >= REGISTER_CLIENTS * REGISTER_OPS, "operations with a known outcome: " + definite);
            assertEquals(List.of(), LinearizabilityChecker.violations(history), "keys with a non-linearizable history");
        } finally {
            cluster.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** When the leader was killed, and whether its register has been written since (by its new leader). */
    private static final class KillMark {
        final String register;
        final CountDownLatch writtenAfter = new CountDownLatch(1);
        volatile long at;

        KillMark(String register) {
            this.register = register;
        }

        void acknowledged(String key, long invoke) {
            if (key.equals(register) && at != 0 && invoke > at) {
                writtenAfter.countDown();
            }
        }
    }

    /**
     * One client: REGISTER_OPS operations that completed, half of them before {@code halfway} counts down, and
     * on until a write to the killed leader's register was acknowledged after the kill.
     */
    private static final class RegisterClient {
        final int id;
        final Thread thread;
        volatile Throwable failure;

        RegisterClient(int id, RedisClusterClient cluster, List<String> keys, Map<String, List<Operation>> history,
                CountDownLatch halfway, KillMark kill) {
            this.id = id;
            this.thread = new Thread(() -> {
                try {
                    run(cluster, keys, history, halfway, kill);
                } catch (Throwable t) {
                    failure = t;
                }
            }, "register-client-" + id);
        }

        private void run(RedisClusterClient cluster, List<String> keys, Map<String, List<Operation>> history,
                CountDownLatch halfway, KillMark kill) {
            Random random = new Random(id);
            StatefulRedisClusterConnection<String, String> connection = null;
            int done = 0;
            int sent = 0;
            try {
                while (done < REGISTER_OPS || kill.writtenAfter.getCount() > 0) {
                    String key = keys.get(random.nextInt(keys.size()));
                    boolean ok;
                    if (connection == null) {
                        try {
                            connection = cluster.connect();
                        } catch (RuntimeException noNodeAnswered) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                            continue;
                        }
                    }
                    long invoke = System.nanoTime();
                    if (random.nextBoolean()) {
                        String value = "c" + id + "-" + sent++;
                        try {
                            ok = "OK".equals(connection.sync().set(key, value));
                        } catch (RuntimeException e) {
                            ok = false;
                        }
                        record(history, key, Operation.write(value, invoke,
                                ok ? System.nanoTime() : LinearizabilityChecker.UNKNOWN));
                        if (ok) {
                            kill.acknowledged(key, invoke);
                        }
                    } else {
                        try {
                            String value = connection.sync().get(key);
                            record(history, key, Operation.read(value, invoke, System.nanoTime()));
                            ok = true;
                        } catch (RuntimeException e) {
                            ok = false; // a read that returned nothing constrains nothing
                        }
                    }
                    if (ok) {
                        done++;
                        if (done == REGISTER_OPS / 2) {
                            halfway.countDown();
                        }
                    } else {
                        connection.close(); // may be the killed node's: a new connection, a new view
                        connection = null;
                        try {
                            cluster.refreshPartitions();
                        } catch (RuntimeException noNodeAnswered) {
                            // the next operation tries again
                        }
                        // Pacing only: during an election every operation on the group fails at once.
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                    }
                }
            } finally {
                if (connection != null) {
                    connection.close();
                }
            }
        }
    }

    private static void record(Map<String, List<Operation>> history, String key, Operation op) {
        history.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(op);
    }

    /** A key in each group's slots, from the ranges INFO cluster reports. */
    private static List<String> oneKeyPerGroup() throws Exception {
        Map<String, String> info;
        try (Lettuce l = Lettuce.connect(nodes.clientPort(0), ProtocolVersion.RESP2)) {
            info = ReplicatedServerTest.parse(l.sync().info("cluster"));
        }
        List<String> keys = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            String line = info.get("cluster_group_" + g);
            String slots = line.substring(line.indexOf("slots=") + 6, line.indexOf(',', line.indexOf("slots=")));
            int first = Integer.parseInt(slots.substring(0, slots.indexOf('-')));
            int last = Integer.parseInt(slots.substring(slots.indexOf('-') + 1));
            for (int n = 0; ; n++) {
                int slot = KeySlot.of(("register:" + n).getBytes(StandardCharsets.UTF_8));
                if (slot >= first && slot <= last) {
                    keys.add("register:" + n);
                    break;
                }
            }
        }
        return keys;
    }

    /** The index of the node leading the group of {@code key}, as the cluster client sees it now. */
    private static int nodeLeading(RedisClusterClient cluster, String key) {
        int slot = KeySlot.of(key.getBytes(StandardCharsets.UTF_8));
        try (StatefulRedisClusterConnection<String, String> connection = cluster.connect()) {
            int port = connection.getPartitions().getPartitionBySlot(slot).getUri().getPort();
            for (int i = 0; i < ClusterUnderTest.SIZE; i++) {
                if (nodes.clientPort(i) == port) {
                    return i;
                }
            }
        }
        throw new IllegalStateException("no node masters slot " + slot);
    }

    /** Seeded with every node, so its view can be refreshed while one is down; never resends a command. */
    private static RedisClusterClient atMostOnceClient() {
        List<RedisURI> seeds = new ArrayList<>();
        for (int i = 0; i < ClusterUnderTest.SIZE; i++) {
            seeds.add(RedisURI.builder().withHost("127.0.0.1").withPort(nodes.clientPort(i))
                    .withTimeout(Duration.ofSeconds(10)).build());
        }
        RedisClusterClient client = RedisClusterClient.create(seeds);
        client.setOptions(ClusterClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).autoReconnect(false)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers()
                        .build())
                .build());
        return client;
    }
}
