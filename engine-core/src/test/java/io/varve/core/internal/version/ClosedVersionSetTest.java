package io.varve.core.internal.version;

import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.sst.TableProperties;
import io.varve.core.internal.sst.TableWriter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The version set, the table cache and the reclaimer after {@code close()}: acquisitions fail with the closed
 * state instead of spinning or mapping a table nobody releases, and no freeing task is lost to the race with
 * the reclaimer's final drain.
 */
class ClosedVersionSetTest {

    private static final Path DIR = Path.of("/closed");
    private static final long BOUND_SECONDS = 30;

    private static Path path(long number) {
        return DIR.resolve(number + ".sst");
    }

    @Test
    void acquireAfterCloseThrowsInsteadOfSpinning() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        try (Reclaimer reclaimer = new Reclaimer("closed-test")) {
            TableCache cache = new TableCache(fs, ClosedVersionSetTest::path, null);
            Memtable memtable = new Memtable(Memtable.MIN_CAPACITY);
            VersionSet versions = VersionSet.open(fs, DIR, VersionSet.recover(fs, DIR),
                    new VersionEdit().logNumber(1), memtable, reclaimer, cache, ClosedVersionSetTest::path, 100);
            memtable.release();
            versions.close();
            CompletableFuture<Throwable> acquired = CompletableFuture.supplyAsync(() -> {
                try {
                    versions.acquire().release();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Throwable outcome = acquired.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertTrue(outcome instanceof IllegalStateException && outcome.getMessage().equals("database is closed"),
                    "got " + outcome);
            assertThrows(IllegalStateException.class,
                    () -> versions.logAndApply(new VersionEdit(), m -> m), "edits after close");
        }
    }

    @Test
    void aTableCacheMapsNothingAfterClose() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        byte[] key = "k".getBytes();
        TableProperties p;
        try (WritableFile file = fs.create(path(7))) {
            TableWriter writer = new TableWriter(file, TableOptions.defaults());
            writer.add(MemorySegment.ofArray(key), InternalKey.trailer(1, ValueKind.PUT), MemorySegment.ofArray(key));
            p = writer.finish();
            writer.sync();
        }
        TableMeta table = new TableMeta(7, p.fileSize(), key, p.smallestTrailer(), key, p.largestTrailer(), 1, 1, -1);
        TableCache cache = new TableCache(fs, ClosedVersionSetTest::path, null);
        cache.acquire(table).release();
        cache.close();
        assertEquals(0, cache.openCount());
        assertThrows(IllegalStateException.class, () -> cache.acquire(table));
        assertEquals(0, cache.openCount(), "a table acquired after close stays mapped forever");
    }

    @Test
    void everyTaskSubmittedAroundCloseRuns() throws Exception {
        Random seeds = new Random();
        for (int round = 0; round < 2000; round++) {
            long seed = seeds.nextLong();
            Random random = new Random(seed);
            Reclaimer reclaimer = new Reclaimer("closed-test", 0);
            AtomicInteger submitted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            CyclicBarrier start = new CyclicBarrier(2);
            int tasks = random.nextInt(200);
            CompletableFuture<Void> submitter = CompletableFuture.runAsync(() -> {
                await(start);
                for (int i = 0; i < tasks; i++) {
                    submitted.incrementAndGet();
                    reclaimer.submit(ran::incrementAndGet);
                }
            });
            int spins = random.nextInt(20_000);
            CompletableFuture<Void> closer = CompletableFuture.runAsync(() -> {
                await(start);
                for (int i = 0; i < spins; i++) {
                    Thread.onSpinWait();
                }
                reclaimer.close();
            });
            submitter.get(BOUND_SECONDS, TimeUnit.SECONDS);
            closer.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertEquals(submitted.get(), ran.get(), "seed " + seed + ": tasks lost around close");
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
