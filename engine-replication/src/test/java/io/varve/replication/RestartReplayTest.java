package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.scan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member restarted from its directories skips the entries its database already holds: jraft replays the
 * log from the member's last snapshot, and the state machine writes only what came after its applied index.
 *
 * <p>The entries are counted on a witness, a member that runs throughout: each acknowledged write is one entry,
 * but a write that leadership moved under is written again and may then be in the log twice, so the exact
 * counts come from what the group committed, not from what the test wrote.
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
                cluster.write(new ReplicatedBatch().put(bytes("k" + i % 40), bytes("first-" + i)));
            }
            cluster.awaitCaughtUp();
            ReplicatedDb restarting = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow();
            DbStateMachine witness = cluster.running().stream().filter(m -> m != restarting).findFirst()
                    .orElseThrow().stateMachine();
            String address = restarting.address();
            restarting.snapshot();
            long atSnapshot = witness.entriesApplied();
            for (int i = 0; i < 30; i++) {
                cluster.write(new ReplicatedBatch().put(bytes("k" + i), bytes("second-" + i)));
            }
            cluster.awaitCaughtUp();
            long appliedBeforeStop = restarting.stateMachine().appliedIndex();
            long atStop = witness.entriesApplied();
            cluster.stop(address);
            for (int i = 0; i < 50; i++) {
                cluster.write(new ReplicatedBatch().delete(bytes("k" + i % 40)));
                cluster.write(new ReplicatedBatch().put("late", bytes("k" + i), bytes("third-" + i)));
            }

            ReplicatedDb restarted = cluster.start(address, cluster.addresses());
            DbStateMachine fsm = restarted.stateMachine();
            assertEquals(appliedBeforeStop, fsm.appliedIndex(), "the applied index is read back from the database");
            cluster.awaitCaughtUp();
            long writtenWhileDown = witness.entriesApplied() - atStop;
            assertTrue(atStop - atSnapshot >= 30 && writtenWhileDown >= 100, "every acknowledged write committed");
            assertEquals(0, fsm.snapshotsLoaded(), "its own snapshot is older than its database: not loaded");
            assertEquals(atStop - atSnapshot, fsm.entriesSkipped(),
                    "entries after the snapshot up to the applied index");
            assertEquals(writtenWhileDown, fsm.entriesApplied(), "only the entries written while it was down");
            assertEquals(scan(cluster.running().get(0)), scan(restarted));
        }
    }
}
