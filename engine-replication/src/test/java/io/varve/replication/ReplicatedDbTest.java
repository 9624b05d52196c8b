package io.varve.replication;

import static io.varve.replication.TestCluster.WAIT_SECONDS;
import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-member group on loopback: writes through the leader, linearizable reads on every member, a follower's
 * refusal naming the leader, convergence of the replicas; and the same reads with leases.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicatedDbTest {
    @TempDir
    Path dir;

    @Test
    void writesThroughLeaderAreReadEverywhereAndReplicasConverge() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 3, TestCluster.fastOptions())) {
            ReplicatedDb leader = cluster.awaitLeader();
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                ReplicatedBatch batch = new ReplicatedBatch().put(bytes("k" + i % 50), bytes("v" + i));
                if (i % 7 == 0) {
                    batch.put("second", bytes("s" + i), bytes("x" + i));
                }
                if (i % 11 == 0) {
                    batch.delete(bytes("k" + (i + 3) % 50));
                }
                acks.add(leader.writeAsync(batch));
            }
            for (CompletableFuture<Void> ack : acks) {
                ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            leader.put(bytes("last"), bytes("written"));
            // A read on any member, right after the write returned, sees it: the read index path.
            for (ReplicatedDb m : cluster.running()) {
                assertEquals("written", string(m.get(bytes("last"))), "read on " + m.address());
                assertEquals("x7", string(m.get("second", bytes("s7"))));
                assertNull(m.get("absent-family", bytes("k")));
            }
            leader.delete(bytes("last"));
            for (ReplicatedDb m : cluster.running()) {
                assertNull(m.get(bytes("last")), "delete seen on " + m.address());
            }
            ReplicatedDb follower = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow();
            assertFalse(follower.isLeader());
            NotLeaderException e = assertThrows(NotLeaderException.class,
                    () -> follower.put(bytes("refused"), bytes("2")));
            assertEquals(leader.address(), e.leader().orElseThrow(), "the refusal names the leader");
            assertThrows(IllegalArgumentException.class,
                    () -> leader.put(DbStateMachine.STATE_FAMILY, bytes("x"), bytes("y")));
            assertNull(leader.get(bytes("refused")));

            cluster.awaitCaughtUp();
            Map<String, Map<String, String>> expected = scan(leader);
            assertEquals(2, expected.size(), "both families hold data");
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(expected, scan(m), "replica " + m.address());
                assertEquals(3, m.peers().size());
                assertEquals(leader.leader(), m.leader());
            }
        }
    }

    @Test
    void leaseReadsSeeAcknowledgedWrites() throws Exception {
        ReplicatedDbOptions lease = TestCluster.fastOptions().withReadMode(ReplicatedDbOptions.ReadMode.LEASE);
        try (TestCluster cluster = new TestCluster(dir, 3, lease)) {
            ReplicatedDb leader = cluster.awaitLeader();
            for (int i = 0; i < 20; i++) {
                leader.put(bytes("k"), bytes("v" + i));
                for (ReplicatedDb m : cluster.running()) {
                    assertEquals("v" + i, string(m.get(bytes("k"))));
                }
            }
            assertTrue(leader.isLeader());
        }
    }
}
