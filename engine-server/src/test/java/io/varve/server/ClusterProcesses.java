package io.varve.server;

import io.lettuce.core.protocol.ProtocolVersion;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Three cluster-mode server processes ({@link VarveMain}, as bin/varve runs it) on loopback ports, every
 * node a member of each of {@code groups} Raft groups. A node can be killed with SIGKILL and started again
 * on its directory and ports; {@link #close} kills whatever still runs. Each node's output goes to
 * {@code node<i>/varve.log}.
 */
final class ClusterProcesses implements ClusterUnderTest {

    private final Path root;
    private final int groups;
    private final int[] clientPorts = new int[SIZE];
    private final int[] raftPorts = new int[SIZE];
    private final Process[] processes = new Process[SIZE];
    private final String peers;

    private ClusterProcesses(Path root, int groups) {
        this.root = root;
        this.groups = groups;
        this.peers = ClusterUnderTest.allocatePeers(clientPorts, raftPorts);
    }

    static ClusterProcesses start(Path root, int groups) throws IOException {
        ClusterProcesses cluster = new ClusterProcesses(root, groups);
        return ClusterUnderTest.startEach(cluster, cluster::start);
    }

    void start(int i) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path home = root.resolve("node" + i);
        Files.createDirectories(home);
        List<String> command = List.of(java, "-Xmx256m", "-Dbolt.netty.epoll.switch=false",
                "-Dio.netty.noUnsafe=true", "--enable-native-access=ALL-UNNAMED", "-cp", classPath,
                VarveMain.class.getName(), "--port", Integer.toString(clientPorts[i]), "--dir", home.toString(),
                "--io-threads", "1", "--raft-address", "127.0.0.1:" + raftPorts[i], "--raft-peers", peers,
                "--raft-election-timeout", ReplicatedCluster.ELECTION_TIMEOUT,
                "--cluster-groups", Integer.toString(groups));
        processes[i] = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("varve.log").toFile()))
                .start();
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. */
    void kill(int i) throws InterruptedException {
        if (processes[i] != null) {
            processes[i].destroyForcibly();
            processes[i].waitFor(ReplicatedCluster.WAIT_MILLIS, TimeUnit.MILLISECONDS);
            processes[i] = null;
        }
    }

    /** Node {@code i}'s INFO replication fields; throws if its process exited, null while it does not answer. */
    Map<String, String> replication(int i) {
        if (processes[i] != null && !processes[i].isAlive()) {
            throw new IllegalStateException("node on " + clientPorts[i] + " exited: " + processes[i].exitValue());
        }
        try (Lettuce l = Lettuce.connect(clientPorts[i], ProtocolVersion.RESP2)) {
            return ReplicatedServerTest.parse(l.sync().info("replication"));
        } catch (RuntimeException notYet) {
            return null; // not listening yet
        }
    }

    @Override
    public int groups() {
        return groups;
    }

    @Override
    public int clientPort(int node) {
        return clientPorts[node];
    }

    @Override
    public int groupsLed(int node) {
        Map<String, String> info = processes[node] == null ? null : replication(node);
        return info == null ? -1 : Integer.parseInt(info.getOrDefault("cluster_groups_led", "-1"));
    }

    /**
     * Starting a JVM and its groups, electing and then balancing their leaders takes long on a loaded
     * machine: generous, since it only detects a hang.
     */
    @Override
    public Duration settleLimit() {
        return Duration.ofSeconds(180);
    }

    @Override
    public void close() {
        for (int i = 0; i < SIZE; i++) {
            try {
                kill(i);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
