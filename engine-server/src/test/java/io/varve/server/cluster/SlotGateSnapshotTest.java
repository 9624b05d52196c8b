package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.replication.GroupShare;
import io.varve.replication.ReplicatedBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A group's snapshot as its slot gate saves and installs it, on two nodes' gates: node 1 applies the moves,
 * node 2 installs group 1's snapshot. An install takes over a moved slot only once the old owner has fenced it
 * on node 2 (before, only the old owner accepts it there); the slots the group handed away by fences node 2
 * never applied are replaced first, and the fences they stand for count as applied at once, so an old owner
 * waiting for them goes on while the install itself waits for that old owner.
 */
class SlotGateSnapshotTest {

    private static final int GROUPS = 2;
    /** Threads of their own: the common pool may have one thread, which a waiting gate would hold. */
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<SlotGates> opened = new ArrayList<>();

    /** Releases whatever still waits in a gate, so a failed test leaves no thread behind. */
    @AfterEach
    void closeGates() throws InterruptedException {
        opened.forEach(SlotGates::close);
        threads.shutdownNow();
        threads.awaitTermination(30, TimeUnit.SECONDS);
    }

    private SlotGates gates() {
        SlotGates gates = new SlotGates();
        opened.add(gates);
        return gates;
    }

    @Test
    void anInstallTakesOverAMovedSlotOnlyOnceTheOldOwnerFencedItHere(@TempDir Path dir) throws Exception {
        try (Db db1 = Db.open(dir.resolve("node1"), Options.defaults());
             Db db2 = Db.open(dir.resolve("node2"), Options.defaults())) {
            SlotGates gates1 = gates();
            SlotGate a1 = SlotGate.open(db1, 0, SlotGate.seed(0, GROUPS), gates1);
            SlotGate b1 = SlotGate.open(db1, 1, SlotGate.seed(1, GROUPS), gates1);
            BitSet moving = slots(0, 200);
            assertNotNull(a1.admit(1, SlotGate.fence(0, 7, moving).ops()));
            assertNotNull(b1.admit(1, SlotGate.accept(1, 7, moving, List.of(0)).ops()));
            GroupShare.Saved saved = b1.save();

            SlotGates gates2 = gates();
            SlotGate a2 = SlotGate.open(db2, 0, SlotGate.seed(0, GROUPS), gates2);
            SlotGate b2 = SlotGate.open(db2, 1, SlotGate.seed(1, GROUPS), gates2);
            List<GroupShare.InstallStep> steps = b2.install(saved);
            assertEquals(2, steps.size());
            assertEquals(List.of(), steps.get(0).ranges(), "group 1 handed nothing away");
            assertEquals(hex(GroupKeyRanges.of(b1.accepted())), hex(steps.get(1).ranges()));
            run(steps.get(0));

            CompletableFuture<Void> takeOver = CompletableFuture.runAsync(steps.get(1).before(), threads);
            awaitWaiting(gates2);
            assertTrue(a2.accepts(100) && !b2.accepts(100), "slot 100 stays group 0's here until it fences it");
            assertFalse(takeOver.isDone(), "the install waits for group 0's fence on this node");

            assertNotNull(a2.admit(1, SlotGate.fence(0, 7, moving).ops()));
            takeOver.get(30, TimeUnit.SECONDS);
            steps.get(1).after().run();
            assertTrue(b2.accepts(100) && !a2.accepts(100));
            assertEquals(b1.state(), b2.state(), "the installed gate knows what the gate that applied the log knows");
            assertEquals(b1.state(), SlotGate.open(db2, 1, SlotGate.seed(1, GROUPS), new SlotGates()).state(),
                    "and has stored it");
        }
    }

    @Test
    void slotsHandedAwayByFencesThisNodeMissedAreReplacedFirstAndFreeTheirNewOwnerWhileTheInstallWaits(
            @TempDir Path dir) throws Exception {
        try (Db db1 = Db.open(dir.resolve("node1"), Options.defaults());
             Db db2 = Db.open(dir.resolve("node2"), Options.defaults())) {
            SlotGates gates1 = gates();
            SlotGate a1 = SlotGate.open(db1, 0, SlotGate.seed(0, GROUPS), gates1);
            SlotGate b1 = SlotGate.open(db1, 1, SlotGate.seed(1, GROUPS), gates1);
            BitSet toGroup0 = slots(9000, 9100);
            BitSet toGroup1 = slots(0, 200);
            // change 7 moves slots 9000-9099 from group 1 to group 0, change 8 moves 0-199 the other way
            List<ReplicatedBatch.Op> fence7 = SlotGate.fence(1, 7, toGroup0).ops();
            List<ReplicatedBatch.Op> accept7 = SlotGate.accept(0, 7, toGroup0, List.of(1)).ops();
            List<ReplicatedBatch.Op> fence8 = SlotGate.fence(0, 8, toGroup1).ops();
            List<ReplicatedBatch.Op> accept8 = SlotGate.accept(1, 8, toGroup1, List.of(0)).ops();
            b1.admit(1, fence7);
            a1.admit(1, accept7);
            a1.admit(2, fence8);
            b1.admit(2, accept8);
            GroupShare.Saved saved = b1.save();
            List<Db.Range> expected = new ArrayList<>(GroupKeyRanges.of(b1.accepted()));
            expected.addAll(GroupKeyRanges.of(toGroup0));
            expected.sort((x, y) -> Arrays.compareUnsigned(x.start(), y.start()));
            assertEquals(hex(expected), hex(saved.ranges()), "the snapshot carries the slots it handed away too");

            // node 2 applied neither change: group 0 has change 7's accept and change 8's fence ahead of it,
            // group 1 installs the snapshot
            SlotGates gates2 = gates();
            SlotGate a2 = SlotGate.open(db2, 0, SlotGate.seed(0, GROUPS), gates2);
            SlotGate b2 = SlotGate.open(db2, 1, SlotGate.seed(1, GROUPS), gates2);
            CompletableFuture<Void> group0 = CompletableFuture.runAsync(() -> {
                assertNotNull(a2.admit(1, accept7), "group 0 takes 9000-9099 once group 1 fenced them here");
                assertNotNull(a2.admit(2, fence8));
            }, threads);
            awaitWaiting(gates2);
            List<GroupShare.InstallStep> steps = b2.install(saved);
            assertEquals(hex(GroupKeyRanges.of(toGroup0)), hex(steps.get(0).ranges()), "missed fences' slots first");
            CompletableFuture<Void> install = CompletableFuture.runAsync(() -> steps.forEach(SlotGateSnapshotTest::run),
                    threads);
            install.get(30, TimeUnit.SECONDS);
            group0.get(30, TimeUnit.SECONDS);
            assertEquals(a1.state(), a2.state());
            assertEquals(b1.state(), b2.state());
        }
    }

    private static List<String> hex(List<Db.Range> ranges) {
        return ranges.stream().map(r -> HexFormat.of().formatHex(r.start()) + ".." + HexFormat.of().formatHex(r.limit()))
                .toList();
    }

    private static void run(GroupShare.InstallStep step) {
        step.before().run();
        step.after().run();
    }

    private static BitSet slots(int from, int to) {
        BitSet slots = new BitSet();
        slots.set(from, to);
        return slots;
    }

    /** Until something waits in {@code gates}; the deadline only detects a hang. */
    private static void awaitWaiting(SlotGates gates) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (gates.waiting() == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("nothing waited");
            }
            Thread.onSpinWait();
        }
    }
}
