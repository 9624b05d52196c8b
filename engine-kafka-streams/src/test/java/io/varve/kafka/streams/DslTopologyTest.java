package io.varve.kafka.streams;

import io.varve.kafka.streams.TopologyRuns.Stores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DSL topologies run through {@code TopologyTestDriver} on Varve's stores and on Kafka's default RocksDB stores
 * with the same input: the outputs must be identical, also when the Varve run is stopped half-way and resumed
 * on the state it left.
 */
class DslTopologyTest {

    private static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
        "iota", "kappa", "lambda", "mu"};
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path temp;

    // ---- word count

    static void wordCount(StreamsBuilder builder) {
        builder.stream("lines", Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.split(" ")))
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as("word-counts"))
                .toStream()
                .to("counts", Produced.with(Serdes.String(), Serdes.Long()));
    }

    private static List<String> lines() {
        Random random = new Random(7);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            StringBuilder line = new StringBuilder(WORDS[random.nextInt(WORDS.length)]);
            for (int w = random.nextInt(5); w > 0; w--) {
                line.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
            }
            lines.add(line.toString());
        }
        return lines;
    }

    private List<KeyValue<String, Long>> countWords(Stores stores, Path stateDir, int stopAfter) {
        Properties props = stopAfter == Integer.MAX_VALUE ? TopologyRuns.config(stores, stateDir)
                : TopologyRuns.resumableConfig(stores, stateDir);
        Topology topology = TopologyRuns.build(props, DslTopologyTest::wordCount);
        List<String> lines = lines();
        List<KeyValue<String, Long>> output = new ArrayList<>();
        int from = 0;
        while (from < lines.size()) {
            int to = Math.min(lines.size(), from + stopAfter);
            TopologyTestDriver driver = new TopologyTestDriver(topology, props, START);
            TestInputTopic<String, String> in = driver.createInputTopic("lines",
                    Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, Long> out = driver.createOutputTopic("counts",
                    Serdes.String().deserializer(), Serdes.Long().deserializer());
            for (int i = from; i < to; i++) {
                in.pipeInput("line-" + i, lines.get(i), START.plusSeconds(i));
            }
            output.addAll(out.readKeyValuesToList());
            if (to == lines.size()) {
                assertFinalCounts(driver, lines);
                driver.close();
            } else {
                TopologyRuns.closeKeepingState(driver, stateDir);
            }
            from = to;
        }
        return output;
    }

    /** The store's final counts against a count made straight from the input. */
    private static void assertFinalCounts(TopologyTestDriver driver, List<String> lines) {
        Map<String, Long> expected = new HashMap<>();
        for (String line : lines) {
            for (String word : line.split(" ")) {
                expected.merge(word, 1L, Long::sum);
            }
        }
        KeyValueStore<String, ValueAndTimestamp<Long>> store = driver.getTimestampedKeyValueStore("word-counts");
        Map<String, Long> actual = new HashMap<>();
        store.all().forEachRemaining(kv -> actual.put(kv.key, kv.value.value()));
        assertEquals(expected, actual);
    }

    @Test
    void wordCountOnVarveMatchesRocksDb() {
        Path varveDir = temp.resolve("varve-run");
        List<KeyValue<String, Long>> onVarve = countWords(Stores.VARVE, varveDir, Integer.MAX_VALUE);
        Path rocksDir = temp.resolve("rocksdb-run");
        List<KeyValue<String, Long>> onRocksDb = countWords(Stores.ROCKSDB, rocksDir, Integer.MAX_VALUE);
        assertEquals(onRocksDb, onVarve);
        assertFalse(onVarve.isEmpty());
    }

    @Test
    void wordCountResumedMidStreamOnVarveMatchesAnUninterruptedRocksDbRun() {
        List<KeyValue<String, Long>> resumed = countWords(Stores.VARVE, temp.resolve("varve-resumed"), 70);
        List<KeyValue<String, Long>> onRocksDb = countWords(Stores.ROCKSDB, temp.resolve("rocksdb"), Integer.MAX_VALUE);
        assertEquals(onRocksDb, resumed);
    }

    @Test
    void theSuppliersConfigurationPutsTheStoresOnVarve() {
        Path varveDir = temp.resolve("varve-used");
        Properties props = TopologyRuns.config(Stores.VARVE, varveDir);
        try (TopologyTestDriver driver = new TopologyTestDriver(TopologyRuns.build(props, DslTopologyTest::wordCount),
                props, START)) {
            driver.createInputTopic("lines", Serdes.String().serializer(), Serdes.String().serializer())
                    .pipeInput("k", "alpha beta");
            assertTrue(TopologyRuns.usedVarve(varveDir));
        }
        Path rocksDir = temp.resolve("rocksdb-used");
        Properties rocksProps = TopologyRuns.config(Stores.ROCKSDB, rocksDir);
        try (TopologyTestDriver driver = new TopologyTestDriver(
                TopologyRuns.build(rocksProps, DslTopologyTest::wordCount), rocksProps, START)) {
            driver.createInputTopic("lines", Serdes.String().serializer(), Serdes.String().serializer())
                    .pipeInput("k", "alpha beta");
            assertFalse(TopologyRuns.usedVarve(rocksDir));
        }
    }

    // ---- stream-table join

    static void streamTableJoin(StreamsBuilder builder) {
        KTable<String, String> regions = builder.table("user-regions",
                Consumed.with(Serdes.String(), Serdes.String()), Materialized.as("user-regions-store"));
        builder.stream("clicks", Consumed.with(Serdes.String(), Serdes.String()))
                .join(regions, (click, region) -> click + "@" + region)
                .to("clicks-by-region", Produced.with(Serdes.String(), Serdes.String()));
    }

    private List<KeyValue<String, String>> joinClicks(Stores stores, Path stateDir, int stopAfter) {
        Properties props = stopAfter == Integer.MAX_VALUE ? TopologyRuns.config(stores, stateDir)
                : TopologyRuns.resumableConfig(stores, stateDir);
        Topology topology = TopologyRuns.build(props, DslTopologyTest::streamTableJoin);
        Random random = new Random(11);
        List<KeyValue<String, String>> events = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String user = "user-" + random.nextInt(15);
            boolean regionUpdate = random.nextInt(4) == 0;
            String value = regionUpdate ? (random.nextInt(8) == 0 ? null : "region-" + random.nextInt(5))
                    : "click-" + i;
            events.add(KeyValue.pair((regionUpdate ? "R" : "C") + user, value));
        }
        List<KeyValue<String, String>> output = new ArrayList<>();
        int from = 0;
        while (from < events.size()) {
            int to = Math.min(events.size(), from + stopAfter);
            TopologyTestDriver driver = new TopologyTestDriver(topology, props, START);
            TestInputTopic<String, String> regions = driver.createInputTopic("user-regions",
                    Serdes.String().serializer(), Serdes.String().serializer());
            TestInputTopic<String, String> clicks = driver.createInputTopic("clicks",
                    Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> out = driver.createOutputTopic("clicks-by-region",
                    Serdes.String().deserializer(), Serdes.String().deserializer());
            for (int i = from; i < to; i++) {
                KeyValue<String, String> event = events.get(i);
                TestInputTopic<String, String> topic = event.key.startsWith("R") ? regions : clicks;
                topic.pipeInput(event.key.substring(1), event.value, START.plusSeconds(i));
            }
            output.addAll(out.readKeyValuesToList());
            if (to == events.size()) {
                driver.close();
            } else {
                TopologyRuns.closeKeepingState(driver, stateDir);
            }
            from = to;
        }
        return output;
    }

    @Test
    void streamTableJoinOnVarveMatchesRocksDb() {
        List<KeyValue<String, String>> onVarve = joinClicks(Stores.VARVE, temp.resolve("varve"), Integer.MAX_VALUE);
        List<KeyValue<String, String>> onRocksDb = joinClicks(Stores.ROCKSDB, temp.resolve("rocksdb"), Integer.MAX_VALUE);
        assertEquals(onRocksDb, onVarve);
        assertFalse(onVarve.isEmpty());
    }

    @Test
    void streamTableJoinResumedMidStreamOnVarveMatchesAnUninterruptedRocksDbRun() {
        List<KeyValue<String, String>> resumed = joinClicks(Stores.VARVE, temp.resolve("varve-resumed"), 110);
        List<KeyValue<String, String>> onRocksDb = joinClicks(Stores.ROCKSDB, temp.resolve("rocksdb"), Integer.MAX_VALUE);
        assertEquals(onRocksDb, resumed);
    }
}
