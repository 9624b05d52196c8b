package io.varve.server;

import io.varve.base.LoopbackPorts;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.server.store.KeyEncoding;
import io.varve.testsupport.RaftProxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Three replicated servers in this JVM on loopback ports, one Raft group over the keyspace, sharing a clock
 * the test moves by hand. Members can be stopped and restarted on their directories. With {@code proxied},
 * every member is reached by its peers through a {@link RaftProxy} (its Raft address is the proxy's), so a
 * test can cut members off.
 */
final class ReplicatedCluster implements AutoCloseable {

    static final int SIZE = 3;
    static final long WAIT_MILLIS = 30_000;
    /**
     * Long enough that a member stalled by a loaded machine (two cores shared by three members, the test and
     * the JIT) does not lose its leadership mid-test, which most tests do not expect; the failover tests wait
     * about this long for a new leader.
     */
    static final String ELECTION_TIMEOUT = "3000";

    final Path root;
    final AtomicLong clock;
    final int[] clientPorts = new int[SIZE];
    final int[] raftPorts = new int[SIZE];
    final int[] listenPorts = new int[SIZE];
    final RaftProxy[] proxies = new RaftProxy[SIZE];
    private final RedisServer[] servers = new RedisServer[SIZE];
    private final String peers;

    private ReplicatedCluster(Path root, AtomicLong clock, boolean proxied) throws IOException {
        this.root = root;
        this.clock = clock;
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            clientPorts[i] = LoopbackPorts.next();
            listenPorts[i] = LoopbackPorts.next();
            if (proxied) {
                proxies[i] = RaftProxy.start(proxyListener(), listenPorts[i]);
                raftPorts[i] = proxies[i].port();
            } else {
                raftPorts[i] = listenPorts[i];
            }
            entries.add(raftAddress(i) + "/127.0.0.1:" + clientPorts[i]);
        }
        this.peers = String.join(",", entries);
    }

    /** On a port from LoopbackPorts: below the ephemeral range, as a proxy that heals binds its port again. */
    private static ServerSocket proxyListener() throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), LoopbackPorts.next()), 50);
        return listener;
    }

    static ReplicatedCluster start(Path root, boolean proxied) throws IOException {
        ReplicatedCluster cluster = new ReplicatedCluster(root, new AtomicLong(System.currentTimeMillis()), proxied);
        try {
            for (int i = 0; i < SIZE; i++) {
                cluster.start(i);
            }
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    String raftAddress(int i) {
        return "127.0.0.1:" + raftPorts[i];
    }

    void start(int i) throws IOException {
        ServerConfig config = ServerConfig.defaultConfig()
                .with("port", Integer.toString(clientPorts[i]))
                .with("dir", root.resolve("node" + i).toString())
                .with("io-threads", "1")
                .with("write-buffer-size", "4mb")
                .with(Map.of("raft-address", raftAddress(i),
                        "raft-listen-port", Integer.toString(listenPorts[i]),
                        "raft-peers", peers,
                        "raft-election-timeout", ELECTION_TIMEOUT)); // validated together: each needs the others
        servers[i] = RedisServer.builder(config).clock(clock::get).loopbackPredicate(InetAddress::isLoopbackAddress)
                .build().start();
    }

    /** Stops member {@code i} in order (its Raft node, then its database), as SHUTDOWN would. */
    void stop(int i) {
        servers[i].close();
        servers[i] = null;
    }

    RedisServer server(int i) {
        return servers[i];
    }

    Map<String, Object> replication(int i) {
        return servers[i].replicationInfo();
    }

    boolean isLeader(int i) {
        return servers[i] != null && "master".equals(replication(i).get("role"));
    }

    /** Waits until one running member other than {@code except} (-1: any) leads, and returns it. */
    int awaitLeader(int except) throws TimeoutException {
        int[] found = {-1};
        await(() -> {
            for (int i = 0; i < SIZE; i++) {
                if (i != except && isLeader(i)) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        }, "a leader");
        return found[0];
    }

    /** Waits until member {@code i} has applied everything {@code leader} has committed now. */
    void awaitCaughtUp(int i, int leader) throws TimeoutException {
        long committed = (Long) replication(leader).get("raft_commit_index");
        await(() -> (Long) replication(i).get("raft_applied_index") >= committed, "catch-up of member " + i);
    }

    /** Polls a condition until it holds; the deadline only detects a hang. */
    static void await(BooleanSupplier condition, String what) throws TimeoutException {
        await(condition, what, WAIT_MILLIS);
    }

    /** {@link #await(BooleanSupplier, String)} for a step that may take longer: {@code millis} at most. */
    static void await(BooleanSupplier condition, String what, long millis) throws TimeoutException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("no " + what + " within " + millis + " ms");
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    /**
     * Runs a client call, again while it fails with an error a client retries after an election (TRYAGAIN,
     * CLUSTERDOWN); the deadline only detects a hang.
     */
    static <T> T retrying(Supplier<T> call) throws TimeoutException {
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
        while (true) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                String m = String.valueOf(e.getMessage());
                if (!(m.startsWith("TRYAGAIN") || m.startsWith("CLUSTERDOWN")) || System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(10_000_000);
            }
        }
    }

    /** Every user record of member {@code i}'s database (metadata and subkeys), as hex, read locally. */
    Map<String, String> scan(int i) {
        Db db = servers[i].db();
        Map<String, String> all = new TreeMap<>();
        HexFormat hex = HexFormat.of();
        byte[] userStart = {KeyEncoding.INTERNAL_PREFIX + 1};
        try (Snapshot snapshot = db.snapshot();
             DbIterator it = db.iterator(ReadOptions.at(snapshot).withLowerBound(userStart))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                all.put(hex.formatHex(it.key()), hex.formatHex(it.value()));
            }
        }
        return all;
    }

    /** A digest of {@link #scan}, for messages. */
    String checksum(int i) {
        Map<String, String> all = scan(i);
        return all.size() + " records, hash " + Integer.toHexString(all.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";")).hashCode());
    }

    @Override
    public void close() {
        for (int i = 0; i < SIZE; i++) {
            if (servers[i] != null) {
                stop(i);
            }
            if (proxies[i] != null) {
                proxies[i].close();
            }
        }
    }

}
