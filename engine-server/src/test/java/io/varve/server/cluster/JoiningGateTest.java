package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.replication.GroupShare;
import io.varve.replication.ReplicatedBatch;
import io.varve.server.store.KeyEncoding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gate of a member a group's replica moves to, installing the group's snapshot (docs/cluster.md, "Moving
 * a group's replica"). Node 1 moved slots 0-199 from group 0 to group 1 (change 7). A node that never held
 * group 0 installs group 0's snapshot without replacing the slots group 0 handed away (on that node they are
 * group 1's), where a member that held group 0 replaces them; and a node that does not replicate group 0
 * installs group 1's snapshot without waiting for group 0's fence, where a member of group 0 waits for it. A
 * joining member sent log entries before any snapshot refuses them all, control entries too, and says so.
 */
class JoiningGateTest {

    private static final int GROUPS = 2;

    @Test
    void aJoiningMemberKeepsTheSlotsHandedAwayAndWaitsOnlyForGroupsItReplicates(@TempDir Path dir)
            throws Exception {
        BitSet moved = new BitSet();
        moved.set(0, 200);
        GroupShare.Saved group0;
        GroupShare.Saved group1;
        try (Db db = Db.open(dir.resolve("node1"), Options.defaults())) {
            SlotGates gates = new SlotGates();
            SlotGate a = SlotGate.open(db, 0, SlotGate.seed(0, GROUPS), gates);
            SlotGate b = SlotGate.open(db, 1, SlotGate.seed(1, GROUPS), gates);
            a.admit(1, List.of(op(SlotGate.fence(0, 7, moved))));
            b.admit(1, List.of(op(SlotGate.accept(1, 7, moved, List.of(0)))));
            assertTrue(b.accepts(0) && !a.accepts(0));
            group0 = a.save();
            group1 = b.save();
        }
        try (Db db = Db.open(dir.resolve("node2"), Options.defaults())) {
            SlotGates gates = new SlotGates();
            gates.memberHere(g -> false);
            List<GroupShare.InstallStep> joining = SlotGate.openJoining(db, 0, new SlotGates()).install(group0);
            assertEquals(List.of(), joining.getFirst().ranges(), "a node that never held group 0 keeps slots 0-199");
            BitSet kept = SlotGate.seed(0, GROUPS);
            kept.andNot(moved);
            assertEquals(hex(GroupKeyRanges.of(kept)), hex(joining.get(1).ranges()), "then the slots group 0 kept");

            SlotGate joined = SlotGate.openJoining(db, 1, gates);
            List<GroupShare.InstallStep> steps = joined.install(group1);
            CompletableFuture.runAsync(steps.get(1).before()).get(30, TimeUnit.SECONDS);
            steps.get(1).after().run();
            assertTrue(joined.accepts(0) && joined.accepts(9000), "group 1's state taken without group 0 here");
        }
        try (Db db = Db.open(dir.resolve("node3"), Options.defaults())) {
            SlotGates gates = new SlotGates();
            gates.memberHere(g -> true);
            List<GroupShare.InstallStep> held = SlotGate.open(db, 0, SlotGate.seed(0, GROUPS), new SlotGates())
                    .install(group0);
            assertEquals(hex(GroupKeyRanges.of(moved)), hex(held.getFirst().ranges()),
                    "a member that held group 0 replaces the slots it missed the fence of");

            List<GroupShare.InstallStep> steps = SlotGate.openJoining(db, 1, gates).install(group1);
            CompletableFuture<Void> install = CompletableFuture.runAsync(steps.get(1).before());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (gates.waiting() == 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000); // polling: the wait is visible only through the count
            }
            assertEquals(1, gates.waiting(), "a member of group 0 waits for its fence here");
            gates.close();
            ExecutionException released = assertThrows(ExecutionException.class,
                    () -> install.get(30, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, released.getCause());
        }
    }

    @Test
    void aJoiningMemberSentLogEntriesBeforeASnapshotRefusesThemAllUntilItsFirstInstall(@TempDir Path dir)
            throws Exception {
        BitSet moved = new BitSet();
        moved.set(0, 200);
        GroupShare.Saved group0;
        try (Db db = Db.open(dir.resolve("node1"), Options.defaults())) {
            SlotGate a = SlotGate.open(db, 0, SlotGate.seed(0, GROUPS), new SlotGates());
            a.admit(1, List.of(op(SlotGate.fence(0, 7, moved))));
            group0 = a.save();
        }
        try (Db db = Db.open(dir.resolve("node2"), Options.defaults())) {
            SlotGate joining = SlotGate.openJoining(db, 0, new SlotGates());
            byte[] inSlot500 = KeyEncoding.slotMetadataStart(500);
            BitSet all = SlotGate.seed(0, 1);
            assertEquals(null, joining.admit(1, List.of(op(SlotGate.accept(0, 3, all, List.of(0))))),
                    "an accept from the log's start is refused");
            assertEquals(null, joining.admit(2, List.of(op(new ReplicatedBatch().put(inSlot500, new byte[1])))),
                    "so is a write");
            assertTrue(joining.sentLogBeforeSnapshot() && !joining.held() && joining.accepted().isEmpty());

            SlotGate afresh = SlotGate.openJoining(db, 0, new SlotGates());
            List<GroupShare.InstallStep> steps = afresh.install(group0);
            steps.forEach(step -> {
                step.before().run();
                step.after().run();
            });
            assertTrue(afresh.held() && !afresh.sentLogBeforeSnapshot() && afresh.accepts(500) && !afresh.accepts(0),
                    "a member started afresh takes the snapshot's state");
            List<ReplicatedBatch.Op> write = List.of(op(new ReplicatedBatch().put(inSlot500, new byte[1])));
            assertEquals(write, afresh.admit(9, write), "after the install, entries apply");
        }
    }

    private static List<String> hex(List<Db.Range> ranges) {
        return ranges.stream().map(r -> HexFormat.of().formatHex(r.start()) + "-" + HexFormat.of().formatHex(r.limit()))
                .toList();
    }

    private static ReplicatedBatch.Op op(ReplicatedBatch batch) {
        return batch.ops().getFirst();
    }
}
