package io.varve.core.internal;

import io.varve.core.Snapshot;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compaction's bound never passes a snapshot being taken: a snapshot that read the visible sequence before
 * writes raised it holds back the oldest bound computed while it registers.
 */
class SnapshotListTest {

    @Test
    void theOldestBoundComputedWhileASnapshotRegistersIsNoNewerThanIt() throws Exception {
        SnapshotList list = new SnapshotList();
        AtomicLong visible = new AtomicLong(30);
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch register = new CountDownLatch(1);
        Thread taker = Thread.ofPlatform().start(() -> list.take(() -> {
            long sequence = visible.get();
            read.countDown();
            awaitQuietly(register);
            return sequence;
        }));
        assertTrue(read.await(30, TimeUnit.SECONDS), "the snapshot read the visible sequence");
        visible.set(40); // writes published between the snapshot's read and its registration

        AtomicLong bound = new AtomicLong(-1);
        Thread compaction = Thread.ofPlatform().start(() -> bound.set(list.oldest(visible::get)));
        // Until the snapshot registers, the bound must not be computed: the compaction waits for the list.
        while (compaction.getState() != Thread.State.BLOCKED && compaction.isAlive()) {
            Thread.onSpinWait();
        }
        register.countDown();
        taker.join();
        compaction.join();
        assertEquals(30, bound.get(), "compaction's bound passed the snapshot being taken");
        assertEquals(30, list.oldest(visible::get));
    }

    @Test
    void withNoSnapshotTheBoundIsTheVisibleSequenceAndClosingOneLiftsIt() {
        SnapshotList list = new SnapshotList();
        AtomicLong visible = new AtomicLong(7);
        assertEquals(7, list.oldest(visible::get));
        Snapshot first = list.take(visible::get);
        visible.set(12);
        Snapshot second = list.take(visible::get);
        visible.set(20);
        assertEquals(7, list.oldest(visible::get));
        assertEquals(12, list.newest(-1));
        first.close();
        assertEquals(12, list.oldest(visible::get));
        second.close();
        assertEquals(20, list.oldest(visible::get));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
