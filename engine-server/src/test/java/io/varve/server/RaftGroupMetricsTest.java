package io.varve.server;

import io.varve.base.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /metrics} carries the Raft meters of every group a node holds, tagged by group: in cluster mode
 * {@code meta} and each {@code slots-<g>}, including a group a split opens later; in replicated mode the one
 * group {@code keyspace}.
 */
class RaftGroupMetricsTest {

    private static final Pattern GROUP_LINE =
            Pattern.compile("^(varve_raft_[a-z_]+)\\{group=\"([^\"]+)\"} (\\S+)$", Pattern.MULTILINE);
    private static final List<String> METERS = List.of("varve_raft_term", "varve_raft_commit_index",
            "varve_raft_applied_index", "varve_raft_apply_lag", "varve_raft_last_log_index", "varve_raft_leader",
            "varve_raft_leader_changes_total", "varve_raft_snapshots_installed_total",
            "varve_raft_entries_applied_total");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void everyGroupOfEveryNodeIsMeteredAndASplitsNewGroupAppears(@TempDir Path dir) throws Exception {
        try (ClusterNodes cluster = ClusterNodes.withMetrics(dir, 3)) {
            Set<String> seeded = Set.of("meta", "slots-0", "slots-1", "slots-2");
            ReplicatedCluster.await(() -> oneLeaderEach(cluster, seeded), "one leader of each group, as metered");
            for (int i = 0; i < ClusterNodes.SIZE; i++) {
                assertSane(scrape(cluster, i), seeded, "node " + i);
            }

            try (RespClient admin = RespClient.connect(cluster.clientPorts[1])) {
                assertEquals("OK", admin.call("VARVE", "CLUSTER", "SPLIT", "1"));
            }
            Set<String> afterSplit = Set.of("meta", "slots-0", "slots-1", "slots-2", "slots-3");
            ReplicatedCluster.await(() -> oneLeaderEach(cluster, afterSplit), "the split's group metered");
            for (int i = 0; i < ClusterNodes.SIZE; i++) {
                assertSane(scrape(cluster, i), afterSplit, "node " + i + " after the split");
            }
        }
    }

    @Test
    void aReplicatedServerMetersItsOneGroup(@TempDir Path dir) throws Exception {
        int port = LoopbackPorts.next();
        String raft = "127.0.0.1:" + LoopbackPorts.next();
        int metricsPort = LoopbackPorts.next();
        try (TestServer server = TestServer.start(dir, c -> c.with("port", Integer.toString(port))
                .with("metrics-port", Integer.toString(metricsPort))
                .with(Map.of("raft-address", raft, "raft-peers", raft + "/127.0.0.1:" + port,
                        "raft-election-timeout", "500")));
             RespClient client = RespClient.connect(server.port())) {
            // Until the member has been elected and has applied its term's first entry, a SET is refused.
            ReplicatedCluster.await(() -> "OK".equals(call(client, "SET", "k", "v")), "a SET acknowledged");
            Map<String, Map<String, Double>> groups = scrape(metricsPort);
            assertSane(groups, Set.of("keyspace"), "replicated");
            Map<String, Double> keyspace = groups.get("keyspace");
            assertEquals(1.0, keyspace.get("varve_raft_leader"), "the only member leads: " + keyspace);
            assertTrue(keyspace.get("varve_raft_entries_applied_total") >= 1, "the SET was applied: " + keyspace);
        }
    }

    private static Object call(RespClient client, String... args) {
        try {
            return client.call(args);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Every node meters exactly {@code groups}, each with a term and a committed entry (a follower learns both
     * from its leader's first messages), and each group has one node metering itself its leader.
     */
    private static boolean oneLeaderEach(ClusterNodes cluster, Set<String> groups) {
        Map<String, Integer> leaders = new TreeMap<>();
        for (int i = 0; i < ClusterNodes.SIZE; i++) {
            Map<String, Map<String, Double>> scraped;
            try {
                scraped = scrape(cluster, i);
            } catch (IOException e) {
                return false;
            }
            if (!scraped.keySet().equals(groups) || !scraped.values().stream().allMatch(
                    m -> m.getOrDefault("varve_raft_term", 0.0) >= 1
                            && m.getOrDefault("varve_raft_commit_index", 0.0) >= 1)) {
                return false;
            }
            scraped.forEach((group, meters) -> {
                if (meters.getOrDefault("varve_raft_leader", 0.0) == 1.0) {
                    leaders.merge(group, 1, Integer::sum);
                }
            });
        }
        return groups.stream().allMatch(g -> leaders.getOrDefault(g, 0) == 1);
    }

    private static void assertSane(Map<String, Map<String, Double>> scraped, Set<String> groups, String where) {
        assertEquals(groups, scraped.keySet(), where + ": the groups it holds");
        for (Map.Entry<String, Map<String, Double>> entry : scraped.entrySet()) {
            String what = where + ", group " + entry.getKey() + ": " + entry.getValue();
            Map<String, Double> m = entry.getValue();
            assertEquals(Set.copyOf(METERS), m.keySet(), what);
            assertTrue(m.get("varve_raft_term") >= 1, what);
            assertTrue(m.get("varve_raft_commit_index") >= 1, "a leader's first entry committed: " + what);
            assertTrue(m.get("varve_raft_applied_index") <= m.get("varve_raft_commit_index"), what);
            assertEquals(m.get("varve_raft_commit_index") - m.get("varve_raft_applied_index"),
                    m.get("varve_raft_apply_lag"), what);
            assertTrue(m.get("varve_raft_leader_changes_total") >= 1, "it has seen a leader: " + what);
            assertTrue(m.get("varve_raft_snapshots_installed_total") >= 0, what);
        }
    }

    /** The groups a scrape of {@code metricsPort} has Raft meters for; empty while it does not answer. */
    static Set<String> groupsMetered(int metricsPort) {
        try {
            return scrape(metricsPort).keySet();
        } catch (IOException e) {
            return Set.of();
        }
    }

    private static Map<String, Map<String, Double>> scrape(ClusterNodes cluster, int node) throws IOException {
        return scrape(cluster.metricsPorts[node]);
    }

    /** The per-group Raft lines of a scrape: group -> meter name -> value. */
    private static Map<String, Map<String, Double>> scrape(int metricsPort) throws IOException {
        HttpResponse<String> response;
        try {
            response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertEquals(200, response.statusCode(), response.body());
        Map<String, Map<String, Double>> groups = new TreeMap<>();
        Matcher line = GROUP_LINE.matcher(response.body());
        while (line.find()) {
            groups.computeIfAbsent(line.group(2), g -> new TreeMap<>())
                    .put(line.group(1), Double.parseDouble(line.group(3)));
        }
        return groups;
    }
}
