package io.varve.core.internal.metrics;

import io.varve.core.metrics.EngineStatistics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Every meter of one database, registered in a Micrometer registry. All are function-based: they read the
 * engine's own adders and volatile fields when the registry is scraped, so the write and read paths never
 * call into Micrometer. The only class of the engine that names a Micrometer type (see {@link EngineMeters}).
 *
 * <p>The registry holds {@code source} weakly, as Micrometer does for function meters: a database that is
 * dropped without being closed does not stay reachable through the registry (its meters then read NaN).
 */
final class MicrometerMeters implements MeterBinding {

    private static final String BYTES = "bytes";

    private final MeterRegistry registry;
    private final Tags tags;
    private final EngineStatistics source;
    private final List<Meter> meters = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private MicrometerMeters(MeterRegistry registry, String database, EngineStatistics source) {
        this.registry = registry;
        this.tags = Tags.of("db", database);
        this.source = source;
    }

    static MeterBinding register(Object registry, String database, EngineStatistics source) {
        if (!(registry instanceof MeterRegistry meterRegistry)) {
            throw new IllegalArgumentException("not a Micrometer MeterRegistry: " + registry.getClass().getName());
        }
        // Micrometer would hand back the open database's meters for the same name and tags, and closing either
        // database would then remove both: two databases of one path (on distinct in-memory file systems)
        // cannot share a registry.
        if (meterRegistry.find("varve.read.views").tag("db", database).meter() != null) {
            throw new IllegalArgumentException("the registry already has the meters of an open database at "
                    + database + "; use another registry for the second one");
        }
        MicrometerMeters binding = new MicrometerMeters(meterRegistry, database, source);
        try {
            binding.registerAll();
        } catch (RuntimeException e) {
            binding.close();
            throw e;
        }
        return binding;
    }

    private void registerAll() {
        timer("varve.write.stall", "Writes stopped or slowed down by the write-stall triggers, and the time they waited",
                s -> s.writeStops() + s.writeSlowdowns(), EngineStatistics::writeStallNanos);
        String stallEvents = "Writes held back, by kind: stop (waited for a trigger to clear) or slowdown (paced)";
        counter("varve.write.stall.events", Tags.of("kind", "stop"), null, stallEvents, EngineStatistics::writeStops);
        counter("varve.write.stall.events", Tags.of("kind", "slowdown"), null, stallEvents,
                EngineStatistics::writeSlowdowns);

        timer("varve.flush", "Memtable flushes finished, and the time they took",
                EngineStatistics::flushes, EngineStatistics::flushNanos);
        counter("varve.flush.written", Tags.empty(), BYTES, "Table bytes written by flushes",
                EngineStatistics::flushBytesWritten);

        timer("varve.compaction", "Compactions finished, and the time they took",
                EngineStatistics::compactions, EngineStatistics::compactionNanos);
        counter("varve.compaction.read", Tags.empty(), BYTES, "Table bytes read by compactions",
                EngineStatistics::compactionBytesRead);
        counter("varve.compaction.written", Tags.empty(), BYTES, "Table bytes written by compactions",
                EngineStatistics::compactionBytesWritten);
        counter("varve.compaction.moved", Tags.empty(), "tables", "Tables moved down a level without rewriting",
                EngineStatistics::compactionTablesMoved);
        gauge("varve.compaction.pending", BYTES, "Compaction debt: bytes above the level targets",
                EngineStatistics::pendingCompactionBytes);

        gauge("varve.level0.tables", "tables", "Tables in level 0", EngineStatistics::level0Tables);
        gauge("varve.memtable.immutable", null, "Sealed memtables waiting for their flush",
                EngineStatistics::immutableMemtables);
        gauge("varve.memtable.size", BYTES, "Arena bytes in use by the mutable and immutable memtables",
                EngineStatistics::memtableBytes);

        if (source.hasBlockCache()) {
            String gets = "Block cache lookups, by result (a miss reads and decompresses the block)";
            counter("varve.block.cache.gets", Tags.of("result", "hit"), null, gets, EngineStatistics::blockCacheHits);
            counter("varve.block.cache.gets", Tags.of("result", "miss"), null, gets, EngineStatistics::blockCacheMisses);
            gauge("varve.block.cache.size", BYTES, "Bytes charged to the block cache", EngineStatistics::blockCacheBytes);
        }

        counter("varve.wal.written", Tags.empty(), BYTES, "Bytes written to the write-ahead log",
                EngineStatistics::walBytesWritten);
        counter("varve.wal.syncs", Tags.empty(), null, "fsyncs of the write-ahead log for synced writes",
                EngineStatistics::walSyncs);
        counter("varve.wal.synced.commits", Tags.empty(), null,
                "Synced writes acknowledged; per varve.wal.syncs, the group-commit factor",
                EngineStatistics::walSyncedCommits);

        counter("varve.read.views", Tags.empty(), null,
                "Read views pinned by gets, iterators and the engine's own bookkeeping",
                EngineStatistics::readViewAcquisitions);
    }

    private void counter(String name, Tags extra, String baseUnit, String description,
                         ToLongFunction<EngineStatistics> value) {
        ToDoubleFunction<EngineStatistics> read = value::applyAsLong;
        FunctionCounter.Builder<EngineStatistics> builder = FunctionCounter.builder(name, source, read)
                .tags(tags.and(extra))
                .description(description);
        if (baseUnit != null) {
            builder.baseUnit(baseUnit);
        }
        meters.add(builder.register(registry));
    }

    private void timer(String name, String description, ToLongFunction<EngineStatistics> count,
                       ToLongFunction<EngineStatistics> nanos) {
        ToDoubleFunction<EngineStatistics> total = nanos::applyAsLong;
        meters.add(FunctionTimer.builder(name, source, count, total, TimeUnit.NANOSECONDS)
                .tags(tags)
                .description(description)
                .register(registry));
    }

    private void gauge(String name, String baseUnit, String description, ToDoubleFunction<EngineStatistics> value) {
        Gauge.Builder<EngineStatistics> builder = Gauge.builder(name, source, value).tags(tags).description(description);
        if (baseUnit != null) {
            builder.baseUnit(baseUnit);
        }
        meters.add(builder.register(registry));
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            meters.forEach(registry::remove);
            meters.clear();
        }
    }
}
