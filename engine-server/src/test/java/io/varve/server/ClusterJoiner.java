package io.varve.server;

import io.varve.base.LoopbackPorts;
import io.varve.core.Db;
import io.varve.server.replica.RaftReplica;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Map;

/** A server started to join a cluster: its own Raft address and client port only. */
final class ClusterJoiner {
    final Path dir;
    final int clientPort = LoopbackPorts.next();
    final int raftPort = LoopbackPorts.next();
    final String id = RaftReplica.nodeId("127.0.0.1:" + raftPort);
    private RedisServer server;

    ClusterJoiner(Path dir) {
        this.dir = dir;
    }

    void start() throws IOException {
        ServerConfig config = ServerConfig.defaultConfig()
                .with("port", Integer.toString(clientPort))
                .with("dir", dir.toString())
                .with("io-threads", "1")
                .with("write-buffer-size", "4mb")
                .with(Map.of("raft-address", "127.0.0.1:" + raftPort,
                        "raft-peers", "127.0.0.1:" + raftPort + "/127.0.0.1:" + clientPort,
                        "raft-election-timeout", ReplicatedCluster.ELECTION_TIMEOUT,
                        "cluster-join", "yes"));
        server = RedisServer.builder(config).loopbackPredicate(InetAddress::isLoopbackAddress).build().start();
    }

    void restart() throws IOException {
        stop();
        start();
    }

    boolean running() {
        return server != null;
    }

    Db db() {
        return server.db();
    }

    void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
