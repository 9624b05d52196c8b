package io.varve.core;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varve.core.compaction.CompactionSettings;
import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** With a registry in the options, every published meter follows the work it counts, and leaves at close. */
class MetricsTest {

    private static final Path DIR = Path.of("/metrics");

    private static Options options(SimpleMeterRegistry registry, MemFileSystem fs) {
        // Compaction only when asked for, and no stall trigger in reach: the test decides what runs.
        return Options.defaults().withFileSystem(fs).withMeterRegistry(registry).withWriteBufferSize(1 << 20)
                .withCompactionSettings(new CompactionSettings(1000, 64 << 20, 10, 64 << 20))
                .withWriteStallTriggers(4, 1000, 1000);
    }

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes();
    }

    /** Compressible, so tables hold lz4 blocks, which reads take through the block cache. */
    private static byte[] value(int i) {
        byte[] v = new byte[200];
        Arrays.fill(v, (byte) ('a' + i % 26));
        return v;
    }

    static double counter(SimpleMeterRegistry registry, String name, String... tags) {
        FunctionCounter c = registry.find(name).tags(tags).functionCounter();
        assertNotNull(c, name + " " + Arrays.toString(tags) + " is registered");
        return c.count();
    }

    static FunctionTimer timer(SimpleMeterRegistry registry, String name) {
        FunctionTimer t = registry.find(name).functionTimer();
        assertNotNull(t, name + " is registered");
        return t;
    }

    static double gauge(SimpleMeterRegistry registry, String name) {
        Gauge g = registry.find(name).gauge();
        assertNotNull(g, name + " is registered");
        return g.value();
    }

    @Test
    void writesFlushesCompactionsAndReadsMoveTheirMeters() throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Db db = Db.open(DIR, options(registry, new MemFileSystem()))) {
            assertEquals(0, counter(registry, "varve.wal.written"));
            assertEquals(0, timer(registry, "varve.flush").count());
            double emptyMemtable = gauge(registry, "varve.memtable.size");

            for (int i = 0; i < 2000; i++) {
                db.put(i % 100 == 0 ? WriteOptions.SYNC : WriteOptions.DEFAULT, key(i), value(i));
            }
            assertTrue(counter(registry, "varve.wal.written") >= 2000 * 200, "log bytes cover the values");
            long batchBytes = db.statistics().walBatchBytes();
            assertTrue(batchBytes >= 2000 * (10 + 200) && batchBytes < counter(registry, "varve.wal.written"),
                    "batches without framing: at least the keys and values, less than the log file bytes");
            assertEquals(20, counter(registry, "varve.wal.synced.commits"));
            assertEquals(20, counter(registry, "varve.wal.syncs"), "one writer: one fsync per synced write");
            assertTrue(gauge(registry, "varve.memtable.size") > emptyMemtable + 2000 * 200);

            db.flush();
            FunctionTimer flush = timer(registry, "varve.flush");
            assertEquals(1, flush.count());
            assertTrue(flush.totalTime(TimeUnit.NANOSECONDS) > 0);
            assertTrue(counter(registry, "varve.flush.written") > 0);
            assertEquals(1, gauge(registry, "varve.level0.tables"));
            assertEquals(0, gauge(registry, "varve.memtable.immutable"));

            for (int i = 0; i < 2000; i++) {
                db.put(key(i), value(i + 1));
            }
            db.flush();
            assertEquals(2, gauge(registry, "varve.level0.tables"));
            db.compactRange(null, null);
            FunctionTimer compaction = timer(registry, "varve.compaction");
            assertTrue(compaction.count() >= 1);
            assertTrue(compaction.totalTime(TimeUnit.NANOSECONDS) > 0);
            assertTrue(counter(registry, "varve.compaction.read") > 0);
            assertTrue(counter(registry, "varve.compaction.written") > 0);
            assertEquals(0, gauge(registry, "varve.level0.tables"));
            assertTrue(gauge(registry, "varve.compaction.pending") >= 0);

            double views = counter(registry, "varve.read.views");
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 2000; i += 10) {
                    db.get(key(i));
                }
            }
            assertTrue(counter(registry, "varve.read.views") >= views + 400, "every get pins a view");
            assertTrue(counter(registry, "varve.block.cache.gets", "result", "miss") > 0);
            assertTrue(counter(registry, "varve.block.cache.gets", "result", "hit") > 0, "the second round hits");
            assertTrue(gauge(registry, "varve.block.cache.size") > 0);
        }
    }

    @Test
    void closeRemovesTheMetersAndAReopenedDatabaseRegistersItsOwn() throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MemFileSystem fs = new MemFileSystem();
        Db db = Db.open(DIR, options(registry, fs));
        Set<String> names = meterNames(registry);
        assertTrue(names.containsAll(Set.of("varve.write.stall", "varve.write.stall.events", "varve.flush",
                "varve.flush.written", "varve.compaction", "varve.compaction.read",
                "varve.compaction.written", "varve.compaction.pending", "varve.level0.tables",
                "varve.memtable.immutable", "varve.memtable.size", "varve.block.cache.gets", "varve.block.cache.size",
                "varve.wal.written", "varve.wal.syncs", "varve.wal.synced.commits", "varve.read.views")), names.toString());
        for (Meter meter : registry.getMeters()) {
            assertEquals(DIR.toString(), meter.getId().getTag("db"), meter.getId().toString());
        }
        db.put(key(1), value(1));
        db.close();
        assertEquals(Set.of(), meterNames(registry));
        assertEquals(0, db.statistics().memtableBytes(), "a closed database pins no view");

        try (Db reopened = Db.open(DIR, options(registry, fs))) {
            assertEquals(names, meterNames(registry));
            assertEquals(0, counter(registry, "varve.wal.written"), "the new instance's counters, not the old one's");
            assertEquals(value(1).length, reopened.get(key(1)).length);
        }
        assertEquals(Set.of(), meterNames(registry));
    }

    @Test
    void databasesShareARegistryThroughTheirDirectoryTag() throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MemFileSystem fs = new MemFileSystem();
        try (Db a = Db.open(Path.of("/a"), options(registry, fs)); Db b = Db.open(Path.of("/b"), options(registry, fs))) {
            a.put(key(1), value(1));
            assertTrue(counter(registry, "varve.wal.written", "db", "/a") > 0);
            assertEquals(0, counter(registry, "varve.wal.written", "db", "/b"));
            // The same path on another file system would collide with /a's meters: refused, not merged.
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Db.open(Path.of("/a"), options(registry, new MemFileSystem())));
            assertTrue(e.getMessage().contains("/a"), e.getMessage());
            b.close();
            assertNull(registry.find("varve.wal.written").tag("db", "/b").functionCounter());
            assertNotNull(registry.find("varve.wal.written").tag("db", "/a").functionCounter());
        }
    }

    @Test
    void withoutABlockCacheNoBlockCacheMetersArePublished() throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Db db = Db.open(DIR, options(registry, new MemFileSystem()).withBlockCacheSize(0))) {
            assertNull(registry.find("varve.block.cache.gets").meter());
            assertNotNull(registry.find("varve.wal.written").meter());
        }
    }

    @Test
    void slowdownsAreCountedAndTimed() throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // One level-0 table is enough to slow writers down; the pacing rate keeps each delay short.
        Options options = options(registry, new MemFileSystem()).withWriteStallTriggers(4, 1, 1000)
                .withDelayedWriteRate(1L << 30);
        try (Db db = Db.open(DIR, options)) {
            db.put(key(1), value(1));
            assertEquals(0, timer(registry, "varve.write.stall").count());
            db.flush();
            db.put(key(2), value(2));
            db.put(key(3), value(3));
            assertEquals(2, counter(registry, "varve.write.stall.events", "kind", "slowdown"));
            assertEquals(0, counter(registry, "varve.write.stall.events", "kind", "stop"));
            FunctionTimer stall = timer(registry, "varve.write.stall");
            assertEquals(2, stall.count());
            assertTrue(stall.totalTime(TimeUnit.NANOSECONDS) > 0);
        }
    }


    @Test
    @Timeout(60)
    void stopsAreCountedAndTimed() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GatedTables fs = new GatedTables();
        // One waiting memtable stops writers: with the flush held at the gate, the second rotation stops.
        Options options = Options.defaults().withFileSystem(fs).withMeterRegistry(registry)
                .withWriteBufferSize(64 << 10).withWriteStallTriggers(1, 20, 36);
        try (Db db = Db.open(DIR, options)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 400; i++) {
                        db.put(key(i), new byte[1000]);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            while (!(counter(registry, "varve.write.stall.events", "kind", "stop") > 0
                    && writer.getState() == Thread.State.WAITING)) {
                assertTrue(writer.isAlive(), "writer finished without ever stopping");
                Thread.onSpinWait();
            }
            assertEquals(1, gauge(registry, "varve.memtable.immutable"), "the held flush's memtable waits");
            fs.gate.countDown();
            writer.join();
            assertNull(failure.get());
            FunctionTimer stall = timer(registry, "varve.write.stall");
            assertTrue(stall.count() >= 1);
            assertTrue(stall.totalTime(TimeUnit.NANOSECONDS) > 0, "the stop's wait was timed");
        }
    }

    private static Set<String> meterNames(SimpleMeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        registry.getMeters().forEach(m -> names.add(m.getId().getName()));
        return names;
    }
}
