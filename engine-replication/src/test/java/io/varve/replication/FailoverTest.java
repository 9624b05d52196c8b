package io.varve.replication;

import static io.varve.replication.TestCluster.WAIT_SECONDS;
import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.get;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's machine crashes (storage reduced to what was synced, nothing written after) while writes are in
 * flight, and the member is restarted on what it kept: every acknowledged write is on the new leader, every
 * write whose outcome the crash left unknown landed whole or not at all, nothing else landed, and all three
 * replicas, the crashed one included, end equal.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailoverTest {
    private static final int WINDOW = 16;
    private static final int TARGET = 300;

    @TempDir
    Path dir;

    @Test
    void acknowledgedWritesSurviveALeaderCrashAndReplicasConverge() throws Exception {
        try (CrashableMembers machines = new CrashableMembers();
                TestCluster cluster = new TestCluster(dir, 3, machines::open)) {
            Map<String, String> acked = new ConcurrentHashMap<>();
            Map<String, String> unknown = new ConcurrentHashMap<>();
            ReplicatedDb leader = cluster.awaitLeader();
            String killed = null;
            int next = 0;
            while (acked.size() < TARGET) {
                Map<String, CompletableFuture<Void>> window = new LinkedHashMap<>();
                for (int i = 0; i < WINDOW; i++) {
                    String key = "w" + next++;
                    String value = "v" + next;
                    window.put(key, leader.writeAsync(new ReplicatedBatch().put(bytes(key), bytes(value))
                            .put("other", bytes(key), bytes(value))));
                }
                if (killed == null && acked.size() >= TARGET / 3) {
                    // Crash the leader's machine with this window in flight.
                    killed = leader.address();
                    machines.crash(cluster, killed);
                }
                boolean anyFailed = false;
                for (Map.Entry<String, CompletableFuture<Void>> write : window.entrySet()) {
                    String key = write.getKey();
                    String value = "v" + (Integer.parseInt(key.substring(1)) + 1);
                    try {
                        write.getValue().get(WAIT_SECONDS, TimeUnit.SECONDS);
                        acked.put(key, value);
                    } catch (ExecutionException e) {
                        anyFailed = true;
                        unknown.put(key, value);
                    }
                }
                if (anyFailed || !leader.isLeader() || leader.address().equals(killed)) {
                    leader = cluster.awaitLeader();
                }
            }
            assertTrue(killed != null, "the leader was killed during the load");

            cluster.start(killed, cluster.addresses());
            leader = cluster.awaitLeader();
            cluster.awaitCaughtUp();
            for (Map.Entry<String, String> e : acked.entrySet()) {
                assertEquals(e.getValue(), string(get(leader, bytes(e.getKey()))), "acknowledged " + e.getKey());
                assertEquals(e.getValue(), string(get(leader, "other", bytes(e.getKey()))));
            }
            // A write the crash left unknown is one batch: both families hold it, or neither does.
            for (Map.Entry<String, String> e : unknown.entrySet()) {
                String inDefault = string(get(leader, bytes(e.getKey())));
                String inOther = string(get(leader, "other", bytes(e.getKey())));
                assertEquals(inDefault, inOther, "write " + e.getKey() + " landed in one family only");
                assertTrue(inDefault == null || inDefault.equals(e.getValue()), "write " + e.getKey());
            }
            Map<String, Map<String, String>> expected = scan(leader);
            Set<String> landed = new TreeSet<>();
            for (String key : expected.get("default").keySet()) {
                landed.add(new String(HexFormat.of().parseHex(key), StandardCharsets.UTF_8));
            }
            landed.removeAll(unknown.keySet());
            assertEquals(new TreeSet<>(acked.keySet()), landed,
                    "the leader holds the acknowledged writes and landed unknown ones, nothing else");
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(expected, scan(m), "replica " + m.address());
            }
        }
    }
}
