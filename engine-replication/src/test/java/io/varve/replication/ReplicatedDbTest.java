package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.get;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-member group on loopback: writes through the leader, linearizable reads on every member, a follower's
 * refusal naming the leader, convergence of the replicas; and the same reads with leases. Leadership may move
 * during the test (a stall longer than the election timeout); writes then go to the new leader.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicatedDbTest {
    @TempDir
    Path dir;

    @Test
    void writesThroughLeaderAreReadEverywhereAndReplicasConverge() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 3, TestCluster.fastOptions())) {
            List<ReplicatedBatch> batches = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                ReplicatedBatch batch = new ReplicatedBatch().put(bytes("k" + i % 50), bytes("v" + i));
                if (i % 7 == 0) {
                    batch.put("second", bytes("s" + i), bytes("x" + i));
                }
                if (i % 11 == 0) {
                    batch.delete(bytes("k" + (i + 3) % 50));
                }
                batches.add(batch);
            }
            cluster.writeAll(batches);
            cluster.write(new ReplicatedBatch().put(bytes("last"), bytes("written")));
            // A read on any member, right after the write returned, sees it: the read index path.
            for (ReplicatedDb m : cluster.running()) {
                assertEquals("written", string(get(m, bytes("last"))), "read on " + m.address());
                assertEquals("x7", string(get(m, "second", bytes("s7"))));
                assertNull(get(m, "absent-family", bytes("k")));
            }
            cluster.write(new ReplicatedBatch().delete(bytes("last")));
            for (ReplicatedDb m : cluster.running()) {
                assertNull(get(m, bytes("last")), "delete seen on " + m.address());
            }
            followerRefusesNamingTheLeader(cluster);
            assertThrows(IllegalArgumentException.class,
                    () -> cluster.running().get(0).put(DbStateMachine.STATE_FAMILY, bytes("x"), bytes("y")));

            cluster.awaitCaughtUp();
            Map<String, Map<String, String>> expected = scan(cluster.running().get(0));
            assertEquals(2, expected.size(), "both families hold data");
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(expected, scan(m), "replica " + m.address());
                assertEquals(3, m.membership().peers().size());
            }
            TestCluster.await("every member names the member that leads", () -> {
                List<Optional<String>> named = cluster.running().stream().map(ReplicatedDb::leader)
                        .distinct().toList();
                return named.size() == 1 && cluster.running().stream()
                        .anyMatch(m -> m.isLeader() && named.getFirst().equals(Optional.of(m.address())));
            });
        }
    }

    /**
     * A follower refuses a write before proposing it (the key stays absent) and names the leader. The names
     * are compared with the leader of the moment: when leadership moves during a check (the "follower" had
     * become leader, or still names the former one), the check is repeated with a fresh key until it runs
     * within one leadership.
     */
    private static void followerRefusesNamingTheLeader(TestCluster cluster) throws Exception {
        long deadline = TestCluster.deadline();
        for (int attempt = 0; ; attempt++) {
            ReplicatedDb leader = cluster.awaitLeader();
            ReplicatedDb follower = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow();
            byte[] key = bytes("refused-" + attempt);
            Optional<String> named = refusal(follower, key);
            if (named.isPresent()) {
                assertNull(get(leader, key), "a refused write changed nothing");
                if (named.get().equals(leader.address()) && leader.isLeader()) {
                    return;
                }
            }
            assertFalse(TestCluster.pastDeadline(deadline),
                    "no refusal named the leader within one leadership; the last named " + named);
        }
    }

    /** The leader named by {@code member}'s refusal to write {@code key}; empty if it did not refuse so. */
    private static Optional<String> refusal(ReplicatedDb member, byte[] key) {
        try {
            member.put(key, bytes("2"));
            return Optional.empty();
        } catch (NotLeaderException e) {
            return Optional.of(e.leader().orElse("none"));
        } catch (ReplicationException e) {
            if (TestCluster.leadershipChanging(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Test
    void leaseReadsSeeAcknowledgedWrites() throws Exception {
        ReplicatedDbOptions lease = TestCluster.fastOptions().withReadMode(ReplicatedDbOptions.ReadMode.LEASE);
        try (TestCluster cluster = new TestCluster(dir, 3, lease)) {
            for (int i = 0; i < 20; i++) {
                cluster.write(new ReplicatedBatch().put(bytes("k"), bytes("v" + i)));
                for (ReplicatedDb m : cluster.running()) {
                    assertEquals("v" + i, string(get(m, bytes("k"))), "read on " + m.address());
                }
            }
        }
    }
}
