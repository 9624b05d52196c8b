package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.replication.ReplicatedBatch;
import io.varve.server.command.KeySlot;
import io.varve.server.store.Database;
import io.varve.server.store.KeyEncoding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A group's slot gate as its state machine sees it, entry by entry: entries touching only accepted slots (or
 * no slot) apply; a fence makes later entries on its slots be refused; an accept waits until each source's
 * gate on the node has applied the change's fence; stale control entries are refused; the state written in
 * place of a control entry is what a reopened gate reads back; closing releases a waiting accept.
 */
class SlotGateTest {

    private static final int GROUPS = 2;

    @Test
    void fencesRefuseLaterWritesAndAcceptsWaitForTheSourcesFenceOnThisNode(@TempDir Path dir) throws Exception {
        try (Db db = Db.open(dir.resolve("db"), Options.defaults())) {
            SlotGates gates = new SlotGates();
            SlotGate a = SlotGate.open(db, 0, SlotGate.seed(0, GROUPS), gates);
            SlotGate b = SlotGate.open(db, 1, SlotGate.seed(1, GROUPS), gates);
            assertTrue(a.accepts(100) && !a.accepts(9000) && b.accepts(9000) && !b.accepts(100));
            List<ReplicatedBatch.Op> write100 = write(keyInSlot(100));
            List<ReplicatedBatch.Op> write300 = write(keyInSlot(300));
            List<ReplicatedBatch.Op> internal = List.of(new ReplicatedBatch.Op("default",
                    KeyEncoding.internalKey("version-floor"), new byte[8]));
            assertEquals(write100, a.admit(1, write100));
            assertNull(b.admit(1, write100), "group 1 never accepted slot 100");

            BitSet moving = new BitSet();
            moving.set(0, 200);
            CompletableFuture<Long> acceptReturnedAfter = CompletableFuture.supplyAsync(() -> {
                List<ReplicatedBatch.Op> applied = b.admit(2, ops(SlotGate.accept(1, 7, moving, List.of(0))));
                assertNotNull(applied);
                return a.lastChange(); // what group 0 had applied when the accept went through
            });
            awaitWaiting(gates);
            List<ReplicatedBatch.Op> fence = a.admit(2, ops(SlotGate.fence(0, 7, moving)));
            assertEquals(1, fence.size());
            assertEquals(SlotGate.STATE, fence.getFirst().value()[0], "the gate writes its state in place");
            assertEquals(7L, acceptReturnedAfter.get(30, TimeUnit.SECONDS), "the accept waited for the fence");

            assertNull(a.admit(3, write100), "after its fence group 0 refuses slot 100");
            assertEquals(write300, a.admit(4, write300));
            assertEquals(internal, a.admit(5, internal), "keys of no slot go with any group");
            assertEquals(write100, b.admit(3, write100));
            assertTrue(b.accepts(199) && b.accepts(9000) && !b.accepts(200) && b.accepts(8192));
            assertNull(a.admit(6, ops(SlotGate.fence(0, 5, moving))), "a control entry older than the last");

            db.put(SlotGate.controlKey(0), fence.getFirst().value());
            SlotGate reopened = SlotGate.open(db, 0, SlotGate.seed(0, GROUPS), new SlotGates());
            assertEquals(7, reopened.lastChange());
            assertFalse(reopened.accepts(100));
            assertTrue(reopened.accepts(300));
        }
    }

    @Test
    void closingReleasesAnAcceptStillWaitingForItsSource(@TempDir Path dir) throws Exception {
        try (Db db = Db.open(dir.resolve("db"), Options.defaults())) {
            SlotGates gates = new SlotGates();
            SlotGate b = SlotGate.open(db, 1, SlotGate.seed(1, GROUPS), gates);
            BitSet moving = new BitSet();
            moving.set(5);
            // group 0 is not even open here: the accept waits for it to appear and fence
            CompletableFuture<List<ReplicatedBatch.Op>> waiting = CompletableFuture.supplyAsync(
                    () -> b.admit(1, ops(SlotGate.accept(1, 3, moving, List.of(0)))));
            gates.close();
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> waiting.get(30, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            assertFalse(b.accepts(5));
        }
    }

    /** Until an accept is waiting in {@code gates}; the deadline only detects a hang. */
    private static void awaitWaiting(SlotGates gates) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (gates.waiting() == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the accept never waited");
            }
            Thread.onSpinWait();
        }
    }

    private static List<ReplicatedBatch.Op> write(byte[] userKey) {
        return List.of(new ReplicatedBatch.Op("default", Database.SLOTTED.metadataKey(userKey), new byte[] {1}));
    }

    /** The operations of a one-entry batch, as the state machine hands them to the gate. */
    private static List<ReplicatedBatch.Op> ops(ReplicatedBatch batch) {
        return batch.ops();
    }

    static byte[] keyInSlot(int slot) {
        for (int i = 0; ; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            if (KeySlot.of(key) == slot) {
                return key;
            }
        }
    }
}
