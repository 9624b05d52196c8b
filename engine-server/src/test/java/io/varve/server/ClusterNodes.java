package io.varve.server;


import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Three cluster-mode servers in this JVM on loopback ports: {@code groups} Raft groups split the slots, every
 * node a member of each, all of a node's groups on its one Raft log and database. Nodes can be stopped and
 * restarted on their directories.
 */
final class ClusterNodes implements ClusterUnderTest {

    final Path root;
    final int groups;
    final int[] clientPorts = new int[SIZE];
    final int[] raftPorts = new int[SIZE];
    /** Each node's {@code metrics-port}; 0 (off) unless started {@link #withMetrics}. */
    final int[] metricsPorts = new int[SIZE];
    private final RedisServer[] servers = new RedisServer[SIZE];
    private final String peers;

    private ClusterNodes(Path root, int groups) {
        this.root = root;
        this.groups = groups;
        this.peers = ClusterUnderTest.allocatePeers(clientPorts, raftPorts);
    }

    static ClusterNodes start(Path root, int groups) throws IOException {
        ClusterNodes cluster = new ClusterNodes(root, groups);
        return ClusterUnderTest.startEach(cluster, cluster::start);
    }

    /** As {@link #start}, each node serving {@code /metrics} on a port of its own. */
    static ClusterNodes withMetrics(Path root, int groups) throws IOException {
        ClusterNodes cluster = new ClusterNodes(root, groups);
        for (int i = 0; i < SIZE; i++) {
            cluster.metricsPorts[i] = io.varve.base.LoopbackPorts.next();
        }
        return ClusterUnderTest.startEach(cluster, cluster::start);
    }

    void start(int i) throws IOException {
        ServerConfig config = ServerConfig.defaultConfig()
                .with("port", Integer.toString(clientPorts[i]))
                .with("dir", root.resolve("node" + i).toString())
                .with("io-threads", "1")
                .with("write-buffer-size", "4mb")
                .with("metrics-port", Integer.toString(metricsPorts[i]))
                .with(Map.of("raft-address", "127.0.0.1:" + raftPorts[i],
                        "raft-peers", peers,
                        "raft-election-timeout", ReplicatedCluster.ELECTION_TIMEOUT,
                        "cluster-groups", Integer.toString(groups)));
        servers[i] = RedisServer.builder(config).loopbackPredicate(InetAddress::isLoopbackAddress).build().start();
    }

    void stop(int i) {
        servers[i].close();
        servers[i] = null;
    }

    boolean running(int i) {
        return servers[i] != null;
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
    public Duration settleLimit() {
        return Duration.ofMillis(ReplicatedCluster.WAIT_MILLIS);
    }

    /** Node {@code i}'s database, read locally. */
    io.varve.core.Db db(int i) {
        return servers[i].db();
    }

    /** Node {@code i}'s CLUSTER MYID. */
    String id(int i) {
        return io.varve.server.replica.RaftReplica.nodeId("127.0.0.1:" + raftPorts[i]);
    }

    Map<String, Object> replication(int i) {
        return servers[i].replicationInfo();
    }

    /** The topology epoch node {@code i} has applied (INFO's cluster_epoch). */
    long epoch(int i) {
        return ((Number) replication(i).get("cluster_epoch")).longValue();
    }

    @Override
    public int groupsLed(int i) {
        return servers[i] == null ? -1 : ((Number) replication(i).get("cluster_groups_led")).intValue();
    }

    @Override
    public void close() {
        for (int i = 0; i < SIZE; i++) {
            if (servers[i] != null) {
                stop(i);
            }
        }
    }
}
