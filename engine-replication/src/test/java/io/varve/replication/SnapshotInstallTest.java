package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.LoopbackPorts;
import java.nio.file.Path;
import java.util.ArrayList;
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
                leader.write(new ReplicatedBatch().put(bytes("k" + i), bytes("v" + i))
                        .put("side", bytes("s" + i % 10), bytes("x" + i)));
            }
            cluster.awaitCaughtUp();
            String lagging = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow()
                    .address();
            cluster.stop(lagging);
            for (int i = 0; i < 100; i += 2) {
                leader.delete(bytes("k" + i));
            }
            leader.put("late", bytes("only-after"), bytes("the stop"));
            // jraft drops the log only up to the previous snapshot, so the second one compacts past the stop.
            long firstBefore = leader.firstLogIndex().orElseThrow();
            for (ReplicatedDb m : cluster.running()) {
                m.snapshot();
            }
            leader.put(bytes("between"), bytes("snapshots"));
            for (ReplicatedDb m : cluster.running()) {
                m.snapshot();
            }
            // jraft queues the truncation behind the snapshot on the log's disk thread; the leader appends this
            // write on the same thread before it can acknowledge it.
            leader.put(bytes("after"), bytes("snapshots"));
            assertTrue(leader.firstLogIndex().orElseThrow() > firstBefore + 100,
                    "the leader's log was truncated past the entries the stopped follower lacks");

            ReplicatedDb back = cluster.start(lagging, cluster.addresses());
            leader.put(bytes("after-snapshot"), bytes("1"));
            cluster.awaitCaughtUp();
            assertEquals(1, back.stateMachine().snapshotsLoaded(), "the lagging follower installed the snapshot");
            assertNull(back.get(bytes("k0")), "a key deleted while it was down is gone");
            assertEquals("v1", string(back.get(bytes("k1"))));

            String fresh = "127.0.0.1:" + LoopbackPorts.next();
            ReplicatedDb added = cluster.start(fresh, List.of());
            leader.addPeer(fresh);
            assertEquals(4, leader.peers().size());
            assertTrue(leader.peers().contains(fresh));
            leader.put(bytes("after-add"), bytes("2"));
            cluster.awaitCaughtUp();
            assertEquals(1, added.stateMachine().snapshotsLoaded(), "the new member installed the snapshot");
            assertEquals("2", string(added.get(bytes("after-add"))));

            Map<String, Map<String, String>> expected = scan(leader);
            assertEquals(3, expected.size(), "default, side and late families");
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(expected, scan(m), "replica " + m.address());
            }

            leader.removePeer(fresh);
            List<String> peers = new ArrayList<>(leader.peers());
            assertEquals(3, peers.size());
            assertTrue(!peers.contains(fresh));
        }
    }
}
