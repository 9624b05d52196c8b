package io.varve.core.internal;

import io.varve.core.internal.memtable.Memtable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rotation swaps in memtables prepared ahead of time on the background executor, for every column family:
 * zeroing an arena under the log lock would stall every writer.
 */
class MemtableSpareTest {

    private static final String BACKGROUND = "spare-maker";

    private final List<String> allocatingThreads = new CopyOnWriteArrayList<>();
    private ExecutorService background;

    @BeforeEach
    void startBackground() {
        background = Executors.newSingleThreadExecutor(r -> new Thread(r, BACKGROUND));
    }

    @AfterEach
    void stopBackground() throws InterruptedException {
        background.shutdown();
        assertTrue(background.awaitTermination(30, TimeUnit.SECONDS));
    }

    private Memtable allocate(long capacity) {
        allocatingThreads.add(Thread.currentThread().getName());
        return new Memtable(capacity, Path.of("/write-path"));
    }

    private void awaitBackground() throws Exception {
        background.submit(() -> { }).get(30, TimeUnit.SECONDS);
    }

    @Test
    void everyFamilysFreshMemtableIsPreparedOffTheWritersThread() throws Exception {
        try (WritePathTestAccess access = WritePathTestAccess.withMemtables(3, background, this::allocate)) {
            awaitBackground();
            for (int round = 0; round < 3; round++) {
                access.put("key" + round, false, 0, 1, 2);
                assertTrue(access.pipeline.rotateNow());
                awaitBackground(); // the spares used are replaced before the next rotation
            }
            assertEquals(0, access.pipeline.memtablesCreatedInline());
            assertTrue(allocatingThreads.stream().allMatch(BACKGROUND::equals),
                    "memtables allocated on " + allocatingThreads);
            assertEquals(3 * 4, allocatingThreads.size(), "a spare per family at open and after each rotation");
        }
    }

    @Test
    void aFamilyAddedLaterGetsASpareToo() throws Exception {
        Memtable added = new Memtable(MemtableSet.capacity(WritePathTestAccess.WRITE_BUFFER, 0));
        try (WritePathTestAccess access = WritePathTestAccess.withMemtables(1, background, this::allocate)) {
            access.pipeline.addFamily(1, added, WritePathTestAccess.WRITE_BUFFER);
            awaitBackground();
            access.put("key", false, 1);
            assertTrue(access.pipeline.rotateNow());
            assertEquals(0, access.pipeline.memtablesCreatedInline());
        } finally {
            added.release();
        }
    }

    @Test
    void aRotationWithoutReadySparesStillWorks() throws Exception {
        // A background executor that never runs anything: every rotation must allocate for itself.
        try (WritePathTestAccess access = WritePathTestAccess.withMemtables(2, task -> { }, this::allocate)) {
            access.put("key", false, 0, 1);
            assertTrue(access.pipeline.rotateNow());
            assertEquals(2, access.pipeline.memtablesCreatedInline());
            access.put("key2", false, 1);
            assertTrue(access.pipeline.rotateNow());
            assertEquals(3, access.pipeline.memtablesCreatedInline(), "only the family holding data rotates");
        }
    }
}
