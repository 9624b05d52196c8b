package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.scan;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower restarted from its directories skips the entries its database already holds: jraft replays the
 * log from the follower's last snapshot, and the state machine writes only what came after its applied index.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestartReplayTest {
    @TempDir
    Path dir;

    @Test
    void restartReplaysOnlyEntriesAfterTheAppliedIndex() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 3, TestCluster.fastOptions())) {
            ReplicatedDb leader = cluster.awaitLeader();
            for (int i = 0; i < 100; i++) {
                leader.put(bytes("k" + i % 40), bytes("first-" + i));
            }
            cluster.awaitCaughtUp();
            ReplicatedDb follower = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow();
            String address = follower.address();
            follower.snapshot();
            for (int i = 0; i < 30; i++) {
                leader.put(bytes("k" + i), bytes("second-" + i));
            }
            cluster.awaitCaughtUp();
            long appliedBeforeStop = follower.stateMachine().appliedIndex();
            cluster.stop(address);
            for (int i = 0; i < 50; i++) {
                leader.delete(bytes("k" + i % 40));
                leader.put("late", bytes("k" + i), bytes("third-" + i));
            }

            ReplicatedDb restarted = cluster.start(address, cluster.addresses());
            DbStateMachine fsm = restarted.stateMachine();
            assertEquals(appliedBeforeStop, fsm.appliedIndex(), "the applied index is read back from the database");
            cluster.awaitCaughtUp();
            assertEquals(0, fsm.snapshotsLoaded(), "its own snapshot is older than its database: not loaded");
            assertEquals(30, fsm.entriesSkipped(), "entries after the snapshot up to the applied index");
            assertEquals(100, fsm.entriesApplied(), "only the entries written while it was down");
            assertEquals(scan(leader), scan(restarted));
        }
    }
}
