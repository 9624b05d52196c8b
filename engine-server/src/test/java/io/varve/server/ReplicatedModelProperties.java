package io.varve.server;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The replicated keyspace against a standalone server as the oracle: random sequences of commands over
 * strings, expiry, hashes, sets and lists go to the leader of a three-member cluster and to the oracle, which
 * share one clock; every reply must be the oracle's. Then each follower, caught up and read with READONLY,
 * must hold what the oracle holds (type, remaining time to live, contents) for every key used.
 */
class ReplicatedModelProperties {

    private static final List<String> KEYS = List.of("k1", "k2", "h1", "s1", "l1");
    private static final AtomicInteger TRY = new AtomicInteger();
    private static Path dir;
    private static ReplicatedCluster cluster;
    private static TestServer oracle;

    /** Around the property (one per class), so the leak check holds the cluster to closing what it opened. */
    @BeforeProperty
    void start() throws IOException {
        dir = Files.createTempDirectory("replicated-model");
        cluster = ReplicatedCluster.start(dir.resolve("cluster"), false);
        oracle = TestServer.start(dir.resolve("oracle"), c -> c, InetAddress::isLoopbackAddress, cluster.clock);
    }

    @AfterProperty
    void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        if (oracle != null) {
            oracle.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Provide
    Arbitrary<List<List<String>>> commands() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> value = Arbitraries.of("a", "b", "7", "1.5", "");
        Arbitrary<String> seconds = Arbitraries.integers().between(1, 1000).map(String::valueOf);
        Arbitrary<List<String>> command = Arbitraries.oneOf(
                Arbitraries.of("SET", "APPEND").flatMap(c -> key.flatMap(k -> value.map(v -> List.of(c, k, v)))),
                key.flatMap(k -> value.flatMap(v -> seconds.map(s -> List.of("SET", k, v, "EX", s)))),
                Arbitraries.of("GET", "INCR", "DEL", "PERSIST", "PTTL", "TYPE", "HGETALL", "SMEMBERS", "LPOP")
                        .flatMap(c -> key.map(k -> List.of(c, k))),
                key.map(k -> List.of("INCRBYFLOAT", k, "1.25")),
                key.flatMap(k -> seconds.map(s -> List.of("EXPIRE", k, s))),
                Arbitraries.of("HSET", "HDEL").flatMap(c -> key.flatMap(k -> value.map(v -> c.equals("HSET")
                        ? List.of(c, k, "f" + v, v) : List.of(c, k, "f" + v)))),
                Arbitraries.of("SADD", "SREM", "RPUSH").flatMap(c -> key.flatMap(k -> value.map(v -> List.of(c, k, v)))),
                key.map(k -> List.of("LRANGE", k, "0", "-1")));
        return command.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 12)
    void theLeaderAnswersAndFollowersHoldWhatAStandaloneServerDoes(@ForAll("commands") List<List<String>> commands)
            throws Exception {
        String prefix = "t" + TRY.incrementAndGet() + ":";
        int leader = cluster.awaitLeader(-1);
        RespClient replicated = RespClient.connect(cluster.clientPorts[leader]);
        try (RespClient model = RespClient.connect(oracle.port())) {
            for (int step = 0; step < commands.size(); step++) {
                String[] args = withPrefix(commands.get(step), prefix);
                Object expected = model.call(args);
                Object actual = callRetrying(replicated, args);
                while (actual instanceof RespClient.Err err && err.text().startsWith("MOVED")) {
                    // Leadership moved between two commands (a stall outlasted the election timeout); the
                    // refused command was not proposed, so it goes to the new leader.
                    replicated.close();
                    leader = cluster.awaitLeader(-1);
                    replicated = RespClient.connect(cluster.clientPorts[leader]);
                    actual = callRetrying(replicated, args);
                }
                assertEquals(expected, actual, "step " + step + ": " + String.join(" ", args));
            }
        } finally {
            replicated.close();
        }
        for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
            cluster.awaitCaughtUp(i, leader);
            try (RespClient replica = RespClient.connect(cluster.clientPorts[i]);
                 RespClient model = RespClient.connect(oracle.port())) {
                replica.call("READONLY");
                for (String key : new TreeSet<>(KEYS)) {
                    for (String[] read : reads(prefix + key)) {
                        assertEquals(model.call(read), replica.call(read), "member " + i + ": " + String.join(" ", read));
                    }
                }
            }
        }
    }

    private static List<String[]> reads(String key) {
        List<String[]> reads = new ArrayList<>();
        reads.add(new String[] {"TYPE", key});
        reads.add(new String[] {"PTTL", key});
        reads.add(new String[] {"GET", key});
        reads.add(new String[] {"HGETALL", key});
        reads.add(new String[] {"SMEMBERS", key});
        reads.add(new String[] {"LRANGE", key, "0", "-1"});
        return reads;
    }

    private static String[] withPrefix(List<String> command, String prefix) {
        String[] args = command.toArray(String[]::new);
        args[1] = prefix + args[1];
        return args;
    }

    /**
     * Sends a command again while the cluster answers that it is between leaders (TRYAGAIN) or that no
     * majority confirmed the leader (CLUSTERDOWN): both are answered at admission, before anything is proposed.
     */
    private static Object callRetrying(RespClient client, String[] args) throws TimeoutException {
        return ReplicatedCluster.retrying(() -> {
            try {
                Object reply = client.call(args);
                if (reply instanceof RespClient.Err err
                        && (err.text().startsWith("TRYAGAIN") || err.text().startsWith("CLUSTERDOWN"))) {
                    throw new IllegalStateException(err.text());
                }
                return reply;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }
}
