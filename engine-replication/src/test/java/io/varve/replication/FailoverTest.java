package io.varve.replication;

import static io.varve.replication.TestCluster.WAIT_SECONDS;
import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.get;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader is stopped (node shut down, database closed) while writes are in flight and restarted on the
 * same directories: every acknowledged write is on the new leader and all three replicas end equal.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailoverTest {
    private static final int WINDOW = 16;
    private static final int TARGET = 300;

    @TempDir
    Path dir;

    @Test
    void acknowledgedWritesSurviveALeaderKillAndReplicasConverge() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 3, TestCluster.fastOptions())) {
            Map<String, String> acked = new ConcurrentHashMap<>();
            ReplicatedDb leader = cluster.awaitLeader();
            String killed = null;
            int next = 0;
            int failed = 0;
            while (acked.size() < TARGET) {
                List<CompletableFuture<Void>> window = new ArrayList<>();
                for (int i = 0; i < WINDOW; i++) {
                    String key = "w" + next++;
                    String value = "v" + next;
                    window.add(leader.writeAsync(new ReplicatedBatch().put(bytes(key), bytes(value))
                                    .put("other", bytes(key), bytes(value)))
                            .thenRun(() -> acked.put(key, value)));
                }
                if (killed == null && acked.size() >= TARGET / 3) {
                    // Stop the leader with this window in flight.
                    killed = leader.address();
                    cluster.stop(killed);
                }
                boolean anyFailed = false;
                for (CompletableFuture<Void> write : window) {
                    try {
                        write.get(WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        anyFailed = true;
                        failed++;
                    }
                }
                if (anyFailed || !leader.isLeader()) {
                    leader = cluster.awaitLeader();
                }
            }
            assertTrue(killed != null, "the leader was killed during the load");
            assertNotEquals(killed, leader.address());
            assertTrue(failed > 0 || acked.size() >= TARGET, "writes went on after the kill");

            cluster.start(killed, cluster.addresses());
            leader = cluster.awaitLeader();
            cluster.awaitCaughtUp();
            for (Map.Entry<String, String> e : acked.entrySet()) {
                assertEquals(e.getValue(), string(get(leader, bytes(e.getKey()))), "acknowledged " + e.getKey());
                assertEquals(e.getValue(), string(get(leader, "other", bytes(e.getKey()))));
            }
            Map<String, Map<String, String>> expected = scan(leader);
            assertTrue(expected.get("default").size() >= acked.size());
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(expected, scan(m), "replica " + m.address());
            }
        }
    }
}
