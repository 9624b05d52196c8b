package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.base.LoopbackPorts;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.raftlog.RaftLogOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group sharing its database with an {@link ApplyGate}, on three processes: an entry the gate refuses
 * changes no member's database and its proposer gets {@link EntryRefusedException} (an outcome known, unlike
 * a timeout); an entry the gate rewrites applies the rewritten operations on every member; the refused
 * entry's index still counts as applied, so entries after it apply normally.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ApplyGateTest {

    /** Refuses entries writing a key that starts with "no-"; upper-cases the values of keys starting "up-". */
    private static final ApplyGate GATE = (index, ops) -> {
        List<ReplicatedBatch.Op> out = new ArrayList<>();
        for (ReplicatedBatch.Op op : ops) {
            String key = string(op.key());
            if (key.startsWith("no-")) {
                return null;
            }
            out.add(key.startsWith("up-") && op.value() != null
                    ? new ReplicatedBatch.Op(op.family(), op.key(),
                    string(op.value()).toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8))
                    : op);
        }
        return out;
    };

    @TempDir
    Path dir;

    @Test
    void refusedEntriesChangeNothingAndRewrittenOnesApplyAsRewrittenOnEveryMember() throws Exception {
        List<ReplicationProcess> processes = new ArrayList<>();
        List<Db> databases = new ArrayList<>();
        List<ReplicatedDb> members = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            addresses.add("127.0.0.1:" + LoopbackPorts.next());
        }
        try {
            for (String address : addresses) {
                Path home = dir.resolve(address.replace(':', '_'));
                processes.add(ReplicationProcess.open(home, address, RaftLogOptions.defaults()));
                databases.add(Db.open(home.resolve("db"), Options.defaults()));
            }
            for (int i = 0; i < processes.size(); i++) {
                members.add(ReplicatedDb.openShared(processes.get(i), "gated", addresses,
                        TestCluster.fastOptions(), databases.get(i), GATE));
            }
            TestCluster.onLeader(() -> members, leader -> leader.put(bytes("plain"), bytes("a")));
            ReplicatedDb leader = TestCluster.awaitLeader(() -> members);
            EntryRefusedException refused = assertThrows(EntryRefusedException.class,
                    () -> leader.write(new ReplicatedBatch().put(bytes("ok-1"), bytes("x"))
                            .put(bytes("no-1"), bytes("y"))));
            assertEquals("write in group gated was refused by the group's apply gate", refused.getMessage());
            TestCluster.onLeader(() -> members, l -> l.put(bytes("up-1"), bytes("abc")));
            for (int i = 0; i < members.size(); i++) {
                members.get(i).awaitReadIndex();
                Db db = databases.get(i);
                assertEquals("a", string(db.get(bytes("plain"))));
                assertEquals("ABC", string(db.get(bytes("up-1"))), "rewritten on member " + i);
                assertNull(db.get(bytes("ok-1")), "the refused entry wrote none of its keys on member " + i);
                assertNull(db.get(bytes("no-1")));
            }
        } finally {
            TestCluster.closeAll(members);
            TestCluster.closeAll(databases);
            TestCluster.closeAll(processes);
        }
    }
}
