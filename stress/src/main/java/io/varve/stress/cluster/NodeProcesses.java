package io.varve.stress.cluster;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.varve.server.VarveMain;
import io.varve.stress.ChildJvm;
import io.varve.testsupport.RaftProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * Three cluster-mode servers ({@link VarveMain}, as {@code bin/varve} runs it) in child JVMs, every node a
 * member of every one of {@code groups} Raft groups. Each node keeps its client and Raft ports for the whole
 * campaign (the peers list names them), so a node killed with SIGKILL restarts on the same ports and
 * directory. The ports are probed free once, at construction, below the ephemeral range
 * ({@link BelowEphemeralPorts}), so that no outgoing connection takes one while its node is down.
 *
 * <p>The peers reach each node's Raft port through a {@link RaftProxy} of its own (the node's
 * {@code raft-address} is its proxy's, its {@code raft-listen-port} the real one), so that
 * {@link #isolate} can cut one node's Raft traffic while its clients still reach it, and {@link #heal} can
 * restore it. While a node is down or starting, its proxy refuses connections as the node's own port would:
 * a proxy that accepted and then closed them at once, the node not answering behind it, was seen to keep a
 * peer's bolt client from reconnecting for minutes after the node was back.
 */
final class NodeProcesses implements AutoCloseable {
    static final int SIZE = 3;
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private final Path root;
    private final int groups;
    private final ClientResources resources;
    private final int[] clientPorts = new int[SIZE];
    private final int[] raftPorts = new int[SIZE];
    private final ChildJvm[] children = new ChildJvm[SIZE];
    private final RaftProxy[] proxies = new RaftProxy[SIZE];
    private final String peers;

    NodeProcesses(Path root, int groups, ClientResources resources) throws IOException {
        this.root = root;
        this.groups = groups;
        this.resources = resources;
        List<String> entries = new ArrayList<>();
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < SIZE; i++) { // all six held at once, so no two are the same
                ServerSocket c = BelowEphemeralPorts.bind();
                ServerSocket r = BelowEphemeralPorts.bind();
                held.add(c);
                held.add(r);
                clientPorts[i] = c.getLocalPort();
                raftPorts[i] = r.getLocalPort();
            }
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
        try {
            for (int i = 0; i < SIZE; i++) {
                proxies[i] = RaftProxy.start(BelowEphemeralPorts.bind(), raftPorts[i]);
                entries.add(raftAddress(i) + "/127.0.0.1:" + clientPorts[i]);
            }
        } catch (IOException e) {
            closeProxies();
            throw e;
        }
        this.peers = String.join(",", entries);
    }

    /** The address the peers know node {@code node} by: its proxy's. */
    String raftAddress(int node) {
        return "127.0.0.1:" + proxies[node].port();
    }

    /**
     * Cuts node {@code node} off from the others' Raft traffic, both ways: nothing reaches it through its
     * proxy, and the others' proxies drop what it sends them. Its clients still reach it.
     */
    void isolate(int node) throws IOException, InterruptedException {
        proxies[node].dropAll();
        for (int i = 0; i < SIZE; i++) {
            if (i != node) {
                proxies[i].dropFrom(raftAddress(node));
            }
        }
    }

    /** Lets all Raft traffic through again. */
    void heal() throws IOException {
        for (RaftProxy proxy : proxies) {
            proxy.heal();
        }
    }

    int clientPort(int node) {
        return clientPorts[node];
    }

    Path stderr(int node) {
        return root.resolve("node" + node + ".err");
    }

    Path dir(int node) {
        return root.resolve("node" + node);
    }

    /**
     * Starts node {@code i} on its directory (a restart after a kill reuses it); does not wait for it. Its
     * proxy lets peers through once the node listens for Raft.
     */
    void start(int node) throws IOException, InterruptedException {
        proxies[node].dropAll();
        Files.createDirectories(dir(node));
        List<String> args = List.of("--port", Integer.toString(clientPorts[node]), "--dir", dir(node).toString(),
                "--io-threads", "1", "--write-buffer-size", "1mb",
                "--raft-address", raftAddress(node), "--raft-listen-port", Integer.toString(raftPorts[node]),
                "--raft-peers", peers,
                "--raft-election-timeout", "2000", "--cluster-groups", Integer.toString(groups));
        ChildJvm child = ChildJvm.start(VarveMain.class, args, stderr(node), line -> { });
        children[node] = child;
        Thread.ofVirtual().name("raft-proxy-opener-" + node).start(() -> healOnceListening(node, child));
    }

    private void healOnceListening(int node, ChildJvm child) {
        while (child.isAlive()) {
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), raftPorts[node])) {
                proxies[node].heal();
                return;
            } catch (IOException notYet) {
                // Polling: the child's Raft listener is visible only by connecting to it.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    boolean alive(int node) {
        return children[node] != null && children[node].isAlive();
    }

    /** Waits {@code delay} (the kill schedule's); whether any running node exited meanwhile. */
    boolean anyExitedWithin(Duration delay) throws InterruptedException {
        int watched = -1;
        for (int i = 0; i < SIZE && watched < 0; i++) {
            watched = children[i] != null ? i : -1;
        }
        if (watched < 0 || children[watched].exitedWithin(delay)) {
            return true;
        }
        for (ChildJvm child : children) {
            if (child != null && !child.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed; the node's proxy refuses connections from now. */
    void kill(int node) throws InterruptedException {
        if (children[node] != null) {
            try {
                proxies[node].dropAll();
            } catch (IOException closing) {
                // the listener is gone either way
            }
            children[node].kill();
            children[node] = null;
        }
    }

    /**
     * Waits until every running node answers INFO and {@code condition} holds for the INFO fields of each
     * (replication and cluster sections), at most {@code limit}; the limit only detects a hang.
     */
    void await(Predicate<Map<String, String>> condition, Duration limit, String what) throws IOException {
        await(-1, condition, limit, what);
    }

    /** As {@link #await(Predicate, Duration, String)}, the condition tested on node {@code only}'s INFO alone. */
    void awaitNode(int only, Predicate<Map<String, String>> condition, Duration limit, String what)
            throws IOException {
        await(only, condition, limit, what);
    }

    private void await(int only, Predicate<Map<String, String>> condition, Duration limit, String what)
            throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            boolean all = true;
            for (int i = 0; i < SIZE && all; i++) {
                if (children[i] != null && !children[i].isAlive()) {
                    throw new IOException("node " + i + " exited while waiting for " + what);
                }
                if (only >= 0 && i != only) {
                    continue;
                }
                Map<String, String> info = children[i] == null ? null : info(i);
                all = info != null && condition.test(info);
            }
            if (all) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("not within " + limit.toSeconds() + " s: " + what);
            }
            // Polling: the nodes' elections and catch-up are visible only through INFO.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** Node {@code node}'s INFO replication and cluster fields; null while it does not answer. */
    Map<String, String> info(int node) {
        RedisClient client = plainClient(node);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            Map<String, String> fields = new HashMap<>();
            for (String section : List.of("replication", "cluster", "keyspace")) {
                for (String line : c.sync().info(section).split("\r\n")) {
                    int colon = line.indexOf(':');
                    if (colon > 0 && !line.startsWith("#")) {
                        fields.put(line.substring(0, colon), line.substring(colon + 1));
                    }
                }
            }
            return fields;
        } catch (RuntimeException notServing) {
            return null;
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** A plain (not cluster) client of one node that never reconnects behind the campaign's back. */
    RedisClient plainClient(int node) {
        RedisClient client = RedisClient.create(resources, RedisURI.builder().withHost("127.0.0.1")
                .withPort(clientPorts[node]).withTimeout(PROBE_TIMEOUT).build());
        client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).autoReconnect(false)
                .build());
        return client;
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < SIZE; i++) {
            kill(i);
        }
        closeProxies();
    }

    private void closeProxies() {
        for (RaftProxy proxy : proxies) {
            if (proxy != null) {
                proxy.close();
            }
        }
    }
}
