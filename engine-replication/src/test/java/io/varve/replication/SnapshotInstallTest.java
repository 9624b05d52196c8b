package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.get;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.LoopbackPorts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * After the leader snapshots and drops its log, a follower that was down and a brand-new member can only
 * catch up by installing the snapshot (jraft copies the registered table files); both end equal to the leader,
 * and the stale follower's keys deleted meanwhile are gone.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnapshotInstallTest {
    @TempDir
    Path dir;

    @Test
    void laggingAndNewMembersCatchUpFromASnapshot() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 3, TestCluster.fastOptions())) {
            ReplicatedDb leader = cluster.awaitLeader();
            for (int i = 0; i < 100; i++) {
                cluster.write(new ReplicatedBatch().put(bytes("k" + i), bytes("v" + i))
                        .put("side", bytes("s" + i % 10), bytes("x" + i)));
            }
            cluster.awaitCaughtUp();
            String lagging = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow()
                    .address();
            cluster.stop(lagging);
            for (int i = 0; i < 100; i += 2) {
                cluster.write(new ReplicatedBatch().delete(bytes("k" + i)));
            }
            cluster.write(new ReplicatedBatch().put("late", bytes("only-after"), bytes("the stop")));
            // jraft drops the log only up to the previous snapshot, so the second one compacts past the stop.
            // Every running member snapshots, so whichever of them leads later serves the snapshot.
            Map<String, Long> firstBefore = new HashMap<>();
            for (ReplicatedDb m : cluster.running()) {
                firstBefore.put(m.address(), m.firstLogIndex().orElseThrow());
                m.snapshot();
            }
            cluster.write(new ReplicatedBatch().put(bytes("between"), bytes("snapshots")));
            for (ReplicatedDb m : cluster.running()) {
                m.snapshot();
            }
            // jraft queues the truncation behind the snapshot on the log's disk thread; the leader appends this
            // write on the same thread before it can acknowledge it.
            ReplicatedDb acknowledged = cluster.write(new ReplicatedBatch().put(bytes("after"), bytes("snapshots")));
            assertTrue(acknowledged.firstLogIndex().orElseThrow() > firstBefore.get(acknowledged.address()) + 100,
                    "the leader's log was truncated past the entries the stopped follower lacks");

            ReplicatedDb back = cluster.start(lagging, cluster.addresses());
            cluster.write(new ReplicatedBatch().put(bytes("after-snapshot"), bytes("1")));
            cluster.awaitCaughtUp();
            // At least once: jraft sends the snapshot again when an install outlives its timeout (a loaded machine).
            assertTrue(back.stateMachine().snapshotsLoaded() >= 1, "the lagging follower installed a snapshot");
            assertNull(get(back, bytes("k0")), "a key deleted while it was down is gone");
            assertEquals("v1", string(get(back, bytes("k1"))));

            String fresh = "127.0.0.1:" + LoopbackPorts.next();
            ReplicatedDb added = cluster.start(fresh, List.of());
            // Adding a member that is already in the configuration succeeds at once, so a retry is harmless.
            ReplicatedDb adder = cluster.onLeader(m -> m.membership().addPeer(fresh));
            assertEquals(4, adder.membership().peers().size());
            assertTrue(adder.membership().peers().contains(fresh));
            cluster.write(new ReplicatedBatch().put(bytes("after-add"), bytes("2")));
            cluster.awaitCaughtUp();
            assertTrue(added.stateMachine().snapshotsLoaded() >= 1, "the new member installed a snapshot");
            assertEquals("2", string(get(added, bytes("after-add"))));

            Map<String, Map<String, String>> expected = scan(cluster.running().get(0));
            assertEquals(3, expected.size(), "default, side and late families");
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(expected, scan(m), "replica " + m.address());
            }

            ReplicatedDb remover = cluster.onLeader(m -> m.membership().removePeer(fresh));
            List<String> peers = new ArrayList<>(remover.membership().peers());
            assertEquals(3, peers.size());
            assertTrue(!peers.contains(fresh));
        }
    }
}
