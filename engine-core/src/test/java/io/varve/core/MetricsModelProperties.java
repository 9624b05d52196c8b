package io.varve.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varve.core.compaction.CompactionSettings;
import io.varve.base.fs.MemFileSystem;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.varve.core.MetricsTest.counter;
import static io.varve.core.MetricsTest.gauge;
import static io.varve.core.MetricsTest.timer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random single-threaded operation sequences against a model of what the meters must show: counters never go
 * back; synced writes, log fsyncs, flushes and level-0 tables match the model exactly; every get pins a view;
 * a write grows the memtable and a compaction empties level 0. Automatic compaction and stalls are out of
 * reach, so everything that runs is something the sequence asked for.
 */
class MetricsModelProperties {

    sealed interface Op permits Put, Get, Flush, Compact {
    }

    record Put(int key, int valueSize, boolean sync) implements Op {
    }

    record Get(int key) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact() implements Op {
    }

    /** What the meters must say, kept alongside the database. */
    private static final class Model {
        long syncedWrites;
        long flushes;
        int level0Tables;
        boolean unflushedWrites;
    }

    private static final List<String> COUNTERS = List.of("varve.wal.written", "varve.wal.syncs",
            "varve.wal.synced.commits", "varve.flush.written", "varve.compaction.read",
            "varve.compaction.written", "varve.read.views");

    @Property(tries = 40)
    void metersAgreeWithTheModel(@ForAll("operations") List<Op> ops) throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMeterRegistry(registry)
                .withWriteBufferSize(4 << 20)
                .withCompactionSettings(new CompactionSettings(1000, 64 << 20, 10, 64 << 20))
                .withWriteStallTriggers(4, 1000, 1000);
        Model model = new Model();
        try (Db db = Db.open(Path.of("/model"), options)) {
            Map<String, Double> previous = readCounters(registry);
            for (Op op : ops) {
                double views = counter(registry, "varve.read.views");
                switch (op) {
                    case Put p -> {
                        double memtable = gauge(registry, "varve.memtable.size");
                        db.put(p.sync ? WriteOptions.SYNC : WriteOptions.DEFAULT, key(p.key), new byte[p.valueSize]);
                        model.unflushedWrites = true;
                        if (p.sync) {
                            model.syncedWrites++;
                        }
                        assertTrue(gauge(registry, "varve.memtable.size") >= memtable + p.valueSize, "memtable grew");
                    }
                    case Get g -> {
                        db.get(key(g.key));
                        assertTrue(counter(registry, "varve.read.views") >= views + 1, "the get pinned a view");
                    }
                    case Flush f -> {
                        double flushBytes = counter(registry, "varve.flush.written");
                        db.flush();
                        if (model.unflushedWrites) {
                            model.flushes++;
                            model.level0Tables++;
                            assertTrue(counter(registry, "varve.flush.written") > flushBytes, "the flush wrote a table");
                        }
                        model.unflushedWrites = false;
                    }
                    case Compact c -> {
                        db.compactRange(null, null);
                        if (model.unflushedWrites) {
                            model.flushes++;
                        }
                        model.unflushedWrites = false;
                        model.level0Tables = 0;
                    }
                }
                assertEquals(model.syncedWrites, counter(registry, "varve.wal.synced.commits"));
                assertEquals(model.syncedWrites, counter(registry, "varve.wal.syncs"), "one writer: an fsync each");
                assertEquals(model.flushes, timer(registry, "varve.flush").count());
                assertEquals(model.level0Tables, gauge(registry, "varve.level0.tables"));
                assertEquals(0, gauge(registry, "varve.memtable.immutable"));
                assertEquals(0, timer(registry, "varve.write.stall").count());
                Map<String, Double> now = readCounters(registry);
                for (String name : COUNTERS) {
                    assertTrue(now.get(name) >= previous.get(name), name + " went back after " + op);
                }
                previous = now;
            }
            assertTrue(timer(registry, "varve.flush").totalTime(TimeUnit.NANOSECONDS) > 0 || model.flushes == 0);
        }
    }

    private static Map<String, Double> readCounters(SimpleMeterRegistry registry) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (String name : COUNTERS) {
            values.put(name, counter(registry, name));
        }
        return values;
    }

    private static byte[] key(int k) {
        return ("k" + k).getBytes();
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, 200);
        Arbitrary<Op> put = net.jqwik.api.Combinators.combine(keys, Arbitraries.integers().between(0, 3000),
                Arbitraries.of(true, false)).as(Put::new);
        Arbitrary<Op> get = keys.map(Get::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, put),
                net.jqwik.api.Tuple.of(4, get),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(new Flush())),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Compact()))).list().ofMaxSize(40);
    }
}
