package io.varve.server;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.varve.base.LoopbackPorts;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black box, cluster mode: three server processes (the program bin/varve runs) with six Raft groups,
 * Lettuce's cluster client writing keys of all slots, and {@code kill -9} of a node leading two groups while
 * writes are in flight. Every write the client saw acknowledged is readable through the cluster once those
 * groups have failed over, and on the killed node once it is restarted and caught up. Tagged
 * {@code process} ({@code -DexcludedGroups=process} skips it).
 */
@Tag("process")
@Timeout(value = 400, unit = TimeUnit.SECONDS)
class ClusterProcessesTest {

    private static final int SIZE = 3;
    private static final int GROUPS = 6;

    @Test
    void acknowledgedWritesSurviveKillNineOfANode(@TempDir Path dir) throws Exception {
        int[] client = new int[SIZE];
        int[] raft = new int[SIZE];
        List<String> peerList = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            client[i] = LoopbackPorts.next();
            raft[i] = LoopbackPorts.next();
            peerList.add("127.0.0.1:" + raft[i] + "/127.0.0.1:" + client[i]);
        }
        String peers = String.join(",", peerList);
        Process[] processes = new Process[SIZE];
        RedisClusterClient cluster = null;
        try {
            for (int i = 0; i < SIZE; i++) {
                processes[i] = launch(dir, i, client[i], raft[i], peers);
            }
            for (int i = 0; i < SIZE; i++) {
                awaitGroupsLed(client[i], processes[i], GROUPS / SIZE);
            }
            cluster = RedisClusterClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(client[0])
                    .withTimeout(Duration.ofSeconds(10)).build());
            cluster.setOptions(ClusterClientOptions.builder().protocolVersion(ProtocolVersion.RESP2)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers().build())
                    .build());
            List<RedisFuture<String>> writes = new ArrayList<>();
            CountDownLatch someAcknowledged = new CountDownLatch(40);
            try (StatefulRedisClusterConnection<String, String> connection = cluster.connect()) {
                RedisAdvancedClusterAsyncCommands<String, String> async = connection.async();
                for (int i = 0; i < 200; i++) {
                    RedisFuture<String> f = async.set("key:" + i, "value-" + i);
                    f.thenRun(someAcknowledged::countDown);
                    writes.add(f);
                }
                assertTrue(someAcknowledged.await(240, TimeUnit.SECONDS), () -> "40 writes acknowledged; failures: "
                        + writes.stream().filter(w -> w.state() == Future.State.FAILED)
                        .map(w -> w.exceptionNow().toString()).distinct().limit(3).toList());
                processes[1].destroyForcibly(); // SIGKILL: no shutdown hook, nothing flushed
                processes[1].waitFor(ReplicatedCluster.WAIT_MILLIS, TimeUnit.MILLISECONDS);
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

            processes[1] = launch(dir, 1, client[1], raft[1], peers);
            awaitGroupsLed(client[1], processes[1], GROUPS / SIZE);
            try (Lettuce back = Lettuce.connect(client[1], ProtocolVersion.RESP2)) {
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
            if (cluster != null) {
                cluster.shutdown(0, 2, TimeUnit.SECONDS);
            }
            for (Process p : processes) {
                if (p != null) {
                    p.destroyForcibly();
                    p.waitFor(ReplicatedCluster.WAIT_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
        }
    }

    private static <T> T retrying(RedisClusterClient cluster, java.util.function.Supplier<T> call)
            throws TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("still failing: " + e);
                }
                cluster.refreshPartitions();
            }
        }
    }

    private static Process launch(Path dir, int i, int clientPort, int raftPort, String peers) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path home = dir.resolve("node" + i);
        Files.createDirectories(home);
        List<String> command = List.of(java, "-Xmx256m", "-Dbolt.netty.epoll.switch=false",
                "-Dio.netty.noUnsafe=true", "--enable-native-access=ALL-UNNAMED", "-cp", classPath,
                VarveMain.class.getName(), "--port", Integer.toString(clientPort), "--dir", home.toString(),
                "--io-threads", "1", "--raft-address", "127.0.0.1:" + raftPort, "--raft-peers", peers,
                "--raft-election-timeout", ReplicatedCluster.ELECTION_TIMEOUT,
                "--cluster-groups", Integer.toString(GROUPS));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("varve.log").toFile()))
                .start();
    }

    /**
     * Waits until the node serves and leads {@code groups} groups (the balancer's spread). Starting a JVM and
     * six groups, electing and then balancing their leaders takes long on a loaded machine: the deadline,
     * which only detects a hang, is generous.
     */
    private static void awaitGroupsLed(int port, Process process, int groups) throws TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("node on " + port + " exited: " + process.exitValue());
            }
            try (Lettuce l = Lettuce.connect(port, ProtocolVersion.RESP2)) {
                Map<String, String> info = ReplicatedServerTest.parse(l.sync().info("replication"));
                if (Integer.toString(groups).equals(info.get("cluster_groups_led"))) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("node on port " + port + " does not lead " + groups + " groups");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }
}
