package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.get;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.base.LoopbackPorts;
import io.varve.raftlog.RaftLogOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two groups in each of three processes: each process has one shared Raft log and one port for both groups.
 * The groups stay apart, and both survive closing and reopening every process.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MultiGroupTest {
    private static final List<String> GROUPS = List.of("alpha", "beta");

    @TempDir
    Path dir;

    private final List<ReplicationProcess> processes = new ArrayList<>();
    private final List<List<ReplicatedDb>> groups = new ArrayList<>();

    private void openAll(List<String> addresses) throws Exception {
        for (String address : addresses) {
            processes.add(ReplicationProcess.open(dir.resolve(address.replace(':', '_')), address,
                    RaftLogOptions.defaults()));
        }
        for (String group : GROUPS) {
            List<ReplicatedDb> members = new ArrayList<>();
            for (ReplicationProcess process : processes) {
                members.add(ReplicatedDb.open(process, group, addresses, TestCluster.fastOptions()));
            }
            groups.add(members);
        }
    }

    private void closeAll() throws Exception {
        for (List<ReplicatedDb> members : groups) {
            TestCluster.closeAll(members);
        }
        TestCluster.closeAll(processes);
        groups.clear();
        processes.clear();
    }

    /** Writes {@code key} = {@code value} through the leader of the moment of group {@code g}. */
    private void put(int g, String key, String value) throws Exception {
        TestCluster.onLeader(() -> groups.get(g), leader -> leader.put(bytes(key), bytes(value)));
    }

    @Test
    void groupsShareALogAndAPortButNotTheirData() throws Exception {
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            addresses.add("127.0.0.1:" + LoopbackPorts.next());
        }
        try {
            openAll(addresses);
            assertThrows(IllegalStateException.class,
                    () -> ReplicatedDb.open(processes.get(0), "alpha", addresses, TestCluster.fastOptions()));
            for (int g = 0; g < GROUPS.size(); g++) {
                for (int i = 0; i < 30; i++) {
                    put(g, "k" + i, GROUPS.get(g) + i);
                }
                put(g, "only-" + GROUPS.get(g), "x");
            }
            for (int g = 0; g < GROUPS.size(); g++) {
                for (ReplicatedDb m : groups.get(g)) {
                    assertEquals(GROUPS.get(g) + "29", string(get(m, bytes("k29"))));
                    assertNull(get(m, bytes("only-" + GROUPS.get(1 - g))), "groups are apart");
                }
            }
            closeAll();

            openAll(addresses);
            for (int g = 0; g < GROUPS.size(); g++) {
                put(g, "after", "reopen");
                for (ReplicatedDb m : groups.get(g)) {
                    assertEquals(GROUPS.get(g) + "7", string(get(m, bytes("k7"))));
                    assertEquals("reopen", string(get(m, bytes("after"))));
                }
                // Each member passed a read barrier after the last write: all hold the same.
                for (ReplicatedDb m : groups.get(g)) {
                    assertEquals(scan(groups.get(g).getFirst()), scan(m));
                }
            }
        } finally {
            closeAll();
        }
    }
}
