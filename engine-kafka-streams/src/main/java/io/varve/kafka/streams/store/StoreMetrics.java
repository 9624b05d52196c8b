package io.varve.kafka.streams.store;

import io.varve.core.ColumnFamily;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBufferManager;
import io.varve.core.metrics.EngineStatistics;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * A store's engine figures as Kafka Streams metrics, registered the way Kafka's RocksDB stores register their
 * property-based metrics (KIP-607): gauges in the {@code stream-state-metrics} group, tagged with the thread,
 * the task and {@code varve-state-id=<store name>}, at recording level INFO, under RocksDB's names where a
 * figure means the same ({@code cur-size-all-mem-tables}, {@code block-cache-usage},
 * {@code estimate-pending-compaction-bytes}, ...). Figures are read when a reporter asks, from the database's
 * properties and statistics; memtable and table figures sum the store's column families (its data and its
 * committed offsets). A store closed meanwhile reads as 0; {@link #close()} removes the gauges, so a store
 * reopened in the same task registers fresh ones.
 *
 * <p>Kafka registers store gauges only through its internal {@code StreamsMetricsImpl}, as its own stores do;
 * a context without it (a test context, a mock) gets no engine metrics.
 */
public final class StoreMetrics implements AutoCloseable {

    /** The scope under which Kafka's metered layers and these gauges report Varve stores. */
    public static final String SCOPE = "varve";

    private static final int LEVELS = 7;

    private final StreamsMetricsImpl metrics;
    private final List<MetricName> registered = new ArrayList<>();

    private StoreMetrics(StreamsMetricsImpl metrics) {
        this.metrics = metrics;
    }

    /** Registers the gauges of {@code database}'s store in {@code context}'s metrics; null if it has none. */
    static StoreMetrics register(StateStoreContext context, StoreDatabase database, Options options) {
        StreamsMetrics streamsMetrics = context.metrics();
        if (!(streamsMetrics instanceof StreamsMetricsImpl impl)) {
            return null;
        }
        StoreMetrics gauges = new StoreMetrics(impl);
        String task = context.taskId().toString();
        String store = database.storeName();
        Registrar r = new Registrar(gauges, task, store, database);

        r.sum("num-immutable-mem-table", "Number of immutable memtables that have not yet been flushed",
                "num-immutable-mem-table");
        r.sum("cur-size-active-mem-table", "Approximate size of active memtable in bytes",
                "cur-size-active-mem-table");
        r.sum("cur-size-all-mem-tables", "Approximate size of active and unflushed immutable memtables in bytes",
                "cur-size-all-mem-tables");
        r.sum("size-all-mem-tables", "Approximate size of active and unflushed immutable memtables in bytes",
                "cur-size-all-mem-tables");
        r.gauge("mem-table-flush-pending", "Reports 1 if a memtable flush is pending, otherwise it reports 0",
                db -> sumOfFamilies(db, "num-immutable-mem-table") > 0 ? 1 : 0);
        r.property("compaction-pending", "Reports 1 if at least one compaction is pending, otherwise it reports 0",
                "compaction-pending");
        r.property("estimate-pending-compaction-bytes", "Estimated total number of bytes a compaction needs to"
                + " rewrite on disk to get all levels down to under target size", "estimate-pending-compaction-bytes");
        r.sum("total-sst-files-size", "Total size in bytes of all SST files", "total-sst-files-size");
        r.sum("live-sst-files-size", "Total size in bytes of all SST files that belong to the latest LSM tree",
                "total-sst-files-size");
        r.gauge("num-tables", "Number of table files of the store's live version, all levels",
                StoreMetrics::tableCount);
        r.property("num-live-versions", "Number of live versions of the LSM tree", "num-live-versions");
        r.property("background-errors", "Reports 1 once background work failed (the store then refuses writes)",
                "background-errors");
        long cacheCapacity = options.blockCache() != null ? options.blockCache().capacityBytes()
                : options.blockCacheSize();
        r.gauge("block-cache-capacity", "Capacity of the block cache in bytes (shared by the JVM's Varve stores)",
                db -> cacheCapacity);
        r.property("block-cache-usage", "Memory size of the entries residing in the block cache (all stores"
                + " sharing it)", "block-cache-usage");
        r.statistic("block-cache-data-hit-total", "Lookups of this store that found their block in the cache",
                EngineStatistics::blockCacheHits);
        r.statistic("block-cache-data-miss-total", "Lookups of this store that had to read their block",
                EngineStatistics::blockCacheMisses);
        r.ratio("block-cache-data-hit-ratio", "Ratio of block cache hits to all block cache lookups of this store"
                + " since it opened", s -> {
                    long hits = s.blockCacheHits();
                    long lookups = hits + s.blockCacheMisses();
                    return lookups == 0 ? 0.0 : (double) hits / lookups;
                });
        r.statistic("memtable-bytes-flushed-total", "Total number of bytes flushed from the memtable to disk",
                EngineStatistics::flushBytesWritten);
        r.statistic("write-stall-duration-total", "Total duration of write stalls in ms",
                s -> s.writeStallNanos() / 1_000_000);
        WriteBufferManager budget = options.writeBufferManager();
        if (budget != null) {
            r.gauge("jvm-write-buffer-usage", "Memtable bytes of all Varve stores sharing this store's budget",
                    db -> budget.usedBytes());
            r.gauge("jvm-write-buffer-capacity", "The memtable budget all Varve stores of the JVM share",
                    db -> budget.budgetBytes());
        }
        return gauges;
    }

    private static long sumOfFamilies(Db db, String property) {
        long sum = 0;
        for (ColumnFamily family : db.columnFamilies()) {
            sum += db.getLongProperty(family, "varve." + property);
        }
        return sum;
    }

    private static long tableCount(Db db) {
        long tables = 0;
        for (int level = 0; level < LEVELS; level++) {
            tables += sumOfFamilies(db, "num-files-at-level" + level);
        }
        return tables;
    }

    /** Removes every gauge this store registered. */
    @Override
    public void close() {
        for (MetricName name : registered) {
            metrics.removeStoreLevelMetric(name);
        }
        registered.clear();
    }

    /** Adds gauges that read the open database and answer 0 once it is closed. */
    private record Registrar(StoreMetrics gauges, String task, String store, StoreDatabase database) {

        void gauge(String name, String description, ToLongFunction<Db> value) {
            Gauge<Long> gauge = (config, now) -> {
                if (!database.isOpen()) {
                    return 0L;
                }
                try {
                    return value.applyAsLong(database.db());
                } catch (RuntimeException closedMeanwhile) {
                    return 0L;
                }
            };
            add(name, description, gauge);
        }

        void ratio(String name, String description, ToDoubleFunction<EngineStatistics> value) {
            Gauge<Double> gauge = (config, now) -> {
                if (!database.isOpen()) {
                    return 0.0;
                }
                try {
                    return value.applyAsDouble(database.db().statistics());
                } catch (RuntimeException closedMeanwhile) {
                    return 0.0;
                }
            };
            add(name, description, gauge);
        }

        void property(String name, String description, String property) {
            gauge(name, description, db -> db.getLongProperty("varve." + property));
        }

        void sum(String name, String description, String property) {
            gauge(name, description, db -> sumOfFamilies(db, property));
        }

        void statistic(String name, String description, ToLongFunction<EngineStatistics> value) {
            gauge(name, description, db -> value.applyAsLong(db.statistics()));
        }

        private <T> void add(String name, String description, Gauge<T> gauge) {
            gauges.registered.add(gauges.metrics.addStoreLevelMutableMetric(task, SCOPE, store, name, description,
                    Sensor.RecordingLevel.INFO, gauge));
        }
    }
}
