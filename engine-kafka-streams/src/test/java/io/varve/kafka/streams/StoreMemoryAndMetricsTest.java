package io.varve.kafka.streams;

import io.varve.core.SharedBlockCache;
import io.varve.core.WriteBufferManager;
import io.varve.kafka.streams.TopologyRuns.Stores;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * All Varve stores of a topology share the JVM's one block cache and one memtable budget and leave both when
 * the application closes; each reports its engine figures through Kafka's store metrics.
 */
class StoreMemoryAndMetricsTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    /** Figures no other test uses, so this test's cache and budget are its own. */
    private static final long CACHE_BYTES = (16L << 20) + 17;
    private static final long BUDGET_BYTES = (16L << 20) + 19;

    @TempDir
    Path temp;

    private static Properties config(Path stateDir) {
        Properties props = TopologyRuns.config(Stores.VARVE, stateDir);
        props.put(VarveStoreConfig.JVM_BLOCK_CACHE_BYTES, CACHE_BYTES);
        props.put(VarveStoreConfig.JVM_WRITE_BUFFER_BYTES, BUDGET_BYTES);
        // Small memtables, one waiting at most: the word counts rotate, and each rotation's flush completes
        // before the next write of that store goes in.
        props.put(VarveStoreConfig.WRITE_BUFFER_BYTES, 64 << 10);
        props.put(VarveStoreConfig.MAX_IMMUTABLE_MEMTABLES, 1);
        return props;
    }

    private static Map<String, Object> asMap(Properties props) {
        Map<String, Object> map = new HashMap<>();
        props.forEach((k, v) -> map.put((String) k, v));
        return map;
    }

    private static Topology twoStores(Properties props) {
        return TopologyRuns.build(props, builder -> {
            DslTopologyTest.wordCount(builder);
            DslTopologyTest.streamTableJoin(builder);
        });
    }

    private static void pipeLines(TopologyTestDriver driver, int lines) {
        TestInputTopic<String, String> in = driver.createInputTopic("lines",
                Serdes.String().serializer(), Serdes.String().serializer());
        TestInputTopic<String, String> regions = driver.createInputTopic("user-regions",
                Serdes.String().serializer(), Serdes.String().serializer());
        for (int i = 0; i < lines; i++) {
            in.pipeInput("line-" + i, "alpha beta gamma-" + (i % 500) + " delta-" + i, START.plusSeconds(i));
            regions.pipeInput("user-" + (i % 50), "region-" + i, START.plusSeconds(i));
        }
    }

    @Test
    void everyStoreSharesTheJvmsCacheAndBudgetAndLeavesThemOnClose() {
        Properties props = config(temp.resolve("shared"));
        WriteBufferManager budget = VarveMemory.writeBuffers(asMap(props));
        SharedBlockCache cache = VarveMemory.blockCache(asMap(props));
        assertEquals(BUDGET_BYTES, budget.budgetBytes());
        assertEquals(CACHE_BYTES, cache.capacityBytes());
        try (TopologyTestDriver driver = new TopologyTestDriver(twoStores(props), props, START)) {
            assertEquals(2, budget.databaseCount(), "the word counts and the regions table");
            pipeLines(driver, 200);
            assertTrue(budget.usedBytes() > 0);
            assertTrue(budget.usedBytes() <= budget.budgetBytes());
        }
        assertEquals(0, budget.databaseCount());
        assertEquals(0, budget.usedBytes());
        assertEquals(0, cache.blockCount(), "closed stores take their blocks with them");
    }

    @Test
    void engineFiguresAppearInKafkasStoreMetrics() {
        Properties props = config(temp.resolve("metrics"));
        try (TopologyTestDriver driver = new TopologyTestDriver(twoStores(props), props, START)) {
            pipeLines(driver, 3_000);
            Map<String, Object> wordCounts = storeMetrics(driver, "word-counts");
            Set<String> expected = new TreeSet<>(List.of("num-immutable-mem-table", "cur-size-active-mem-table",
                    "cur-size-all-mem-tables", "size-all-mem-tables", "mem-table-flush-pending",
                    "compaction-pending", "estimate-pending-compaction-bytes", "total-sst-files-size",
                    "live-sst-files-size", "num-tables", "num-live-versions", "background-errors",
                    "block-cache-capacity", "block-cache-usage", "block-cache-data-hit-total",
                    "block-cache-data-miss-total", "block-cache-data-hit-ratio", "memtable-bytes-flushed-total",
                    "write-stall-duration-total", "jvm-write-buffer-usage", "jvm-write-buffer-capacity"));
            assertTrue(wordCounts.keySet().containsAll(expected), "missing: " + missing(expected, wordCounts));
            assertEquals(CACHE_BYTES, wordCounts.get("block-cache-capacity"));
            assertEquals(BUDGET_BYTES, wordCounts.get("jvm-write-buffer-capacity"));
            assertTrue((Long) wordCounts.get("cur-size-all-mem-tables") > 0, wordCounts.toString());
            assertTrue((Long) wordCounts.get("num-tables") > 0, "the counts were flushed: " + wordCounts);
            assertTrue((Long) wordCounts.get("total-sst-files-size") > 0, wordCounts.toString());
            assertTrue((Long) wordCounts.get("memtable-bytes-flushed-total") > 0, wordCounts.toString());
            assertEquals(0L, wordCounts.get("background-errors"));
            assertTrue(storeMetrics(driver, "user-regions-store").keySet().containsAll(expected),
                    "every store reports its own");
        }
    }

    private static Set<String> missing(Set<String> expected, Map<String, Object> actual) {
        Set<String> missing = new TreeSet<>(expected);
        missing.removeAll(actual.keySet());
        return missing;
    }

    /** The values of the store-level metrics Kafka holds for Varve store {@code store}, by metric name. */
    private static Map<String, Object> storeMetrics(TopologyTestDriver driver, String store) {
        Map<String, Object> values = new HashMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : driver.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (name.group().equals("stream-state-metrics") && store.equals(name.tags().get("varve-state-id"))) {
                values.put(name.name(), e.getValue().metricValue());
            }
        }
        return values;
    }
}
