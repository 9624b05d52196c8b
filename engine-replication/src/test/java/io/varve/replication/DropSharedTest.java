package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.LoopbackPorts;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.raftlog.RaftLogOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a member of a group sharing its process's log and database leaves behind once its replica moved to
 * another process: {@link ReplicationProcess#dropShared} removes its log, vote, snapshots and applied index
 * (refused while it is open), leaves the other group alone, and a member opened again there starts empty.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DropSharedTest {

    @Test
    void aDroppedMemberLeavesNoLogVoteSnapshotOrAppliedIndexAndTheOtherGroupKeepsItsOwn(@TempDir Path dir)
            throws Exception {
        String address = "127.0.0.1:" + LoopbackPorts.next();
        try (ReplicationProcess process = ReplicationProcess.open(dir, address, RaftLogOptions.defaults());
             Db db = Db.open(dir.resolve("db"), Options.defaults())) {
            ReplicatedDb kept = ReplicatedDb.openShared(process, "kept", List.of(address),
                    TestCluster.fastOptions(), db);
            try {
                dropAndReopen(process, db, address, kept);
            } finally {
                kept.close();
            }
        }
    }

    private static void dropAndReopen(ReplicationProcess process, Db db, String address, ReplicatedDb kept)
            throws Exception {
        ReplicatedDb moved = ReplicatedDb.openShared(process, "moved", List.of(address),
                TestCluster.fastOptions(), db);
        try {
            TestCluster.awaitLeader(() -> List.of(kept));
            TestCluster.awaitLeader(() -> List.of(moved));
            for (int i = 0; i < 5; i++) {
                kept.put(bytes("kept-" + i), bytes("v"));
                moved.put(bytes("moved-" + i), bytes("v"));
            }
            assertThrows(IllegalStateException.class, () -> process.dropShared("moved", db), "open");
        } finally {
            moved.close();
        }
        assertTrue(ReplicationProcess.hasSharedState("moved", db));
        assertTrue(process.log().firstLogIndex("moved/log").isPresent());

        process.dropShared("moved", db);
        assertFalse(ReplicationProcess.hasSharedState("moved", db));
        assertEquals(OptionalLong.empty(), process.log().firstLogIndex("moved/log"));
        assertFalse(Files.exists(process.groupDir("moved")), "its snapshots are gone");
        assertTrue(ReplicationProcess.hasSharedState("kept", db));
        assertTrue(process.log().firstLogIndex("kept/log").isPresent());
        process.dropShared("moved", db); // again, as after a crash midway: nothing left to do

        ReplicatedDb reopened = ReplicatedDb.openShared(process, "moved", List.of(), TestCluster.fastOptions(),
                db);
        try {
            assertEquals(0, reopened.status().lastLogIndex(), "it starts with an empty log");
        } finally {
            reopened.close();
        }
    }
}
