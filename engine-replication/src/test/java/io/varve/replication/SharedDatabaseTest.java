package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.get;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.base.LoopbackPorts;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.raftlog.RaftLogOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two groups in each of three processes applying to one database per process (the server's cluster mode):
 * both groups' keys land in the shared database, each group keeps its own applied index, so after every
 * process is closed and reopened each group skips exactly what it had applied and applies only new entries;
 * a shared database is never closed by its groups, and snapshots are refused.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SharedDatabaseTest {
    private static final List<String> GROUPS = List.of("alpha", "beta");

    @TempDir
    Path dir;

    private final List<ReplicationProcess> processes = new ArrayList<>();
    private final List<Db> databases = new ArrayList<>();
    private final List<List<ReplicatedDb>> groups = new ArrayList<>();

    private void openAll(List<String> addresses) throws Exception {
        for (String address : addresses) {
            Path home = dir.resolve(address.replace(':', '_'));
            processes.add(ReplicationProcess.open(home, address, RaftLogOptions.defaults()));
            databases.add(Db.open(home.resolve("db"), Options.defaults()));
        }
        for (String group : GROUPS) {
            List<ReplicatedDb> members = new ArrayList<>();
            for (int i = 0; i < processes.size(); i++) {
                members.add(ReplicatedDb.openShared(processes.get(i), group, addresses,
                        TestCluster.fastOptions(), databases.get(i)));
            }
            groups.add(members);
        }
    }

    private void closeAll() throws Exception {
        for (List<ReplicatedDb> members : groups) {
            TestCluster.closeAll(members);
        }
        for (Db db : databases) {
            db.get(bytes("alpha-0")); // still open: its groups do not close a database they share
        }
        TestCluster.closeAll(databases);
        TestCluster.closeAll(processes);
        groups.clear();
        databases.clear();
        processes.clear();
    }

    private void put(int g, String key, String value) throws Exception {
        TestCluster.onLeader(() -> groups.get(g), leader -> leader.put(bytes(key), bytes(value)));
    }

    @Test
    void groupsApplyToOneDatabaseAndReplayOnlyTheirOwnEntries() throws Exception {
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            addresses.add("127.0.0.1:" + LoopbackPorts.next());
        }
        try {
            openAll(addresses);
            // alpha applies 30 entries, beta 5: an applied index shared by both would make beta skip or
            // replay the wrong entries after the reopen.
            for (int i = 0; i < 30; i++) {
                put(0, "alpha-" + i, "a" + i);
            }
            for (int i = 0; i < 5; i++) {
                put(1, "beta-" + i, "b" + i);
            }
            ReplicatedDb alphaLeader = TestCluster.awaitLeader(() -> groups.get(0));
            assertThrows(ReplicationException.class, alphaLeader::snapshot);
            for (int g = 0; g < GROUPS.size(); g++) {
                for (ReplicatedDb m : groups.get(g)) {
                    m.awaitReadIndex();
                }
            }
            for (Db db : databases) {
                assertEquals("a29", string(db.get(bytes("alpha-29"))));
                assertEquals("b4", string(db.get(bytes("beta-4"))));
            }
            closeAll();

            openAll(addresses);
            put(0, "alpha-after", "x");
            put(1, "beta-after", "y");
            for (int g = 0; g < GROUPS.size(); g++) {
                for (ReplicatedDb m : groups.get(g)) {
                    m.awaitReadIndex();
                    assertEquals(1, m.stateMachine().entriesApplied(),
                            GROUPS.get(g) + " applied only the entry written after the reopen");
                }
            }
            for (int i = 0; i < databases.size(); i++) {
                Db db = databases.get(i);
                assertEquals("a7", string(db.get(bytes("alpha-7"))));
                assertEquals("b2", string(db.get(bytes("beta-2"))));
                assertEquals("x", string(get(groups.get(0).get(i), bytes("alpha-after"))));
                assertEquals("y", string(get(groups.get(1).get(i), bytes("beta-after"))));
            }
        } finally {
            closeAll();
        }
    }
}
