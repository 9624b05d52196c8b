package io.varve.kafka.streams;

import io.varve.kafka.streams.TopologyRuns.Stores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Windowed DSL topologies through {@code TopologyTestDriver}, on Varve's window and session stores and on Kafka's
 * default RocksDB stores, with out-of-order and late input spanning many segments (so segments expire and late
 * records are dropped): the outputs must be identical.
 */
class WindowedTopologyTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path temp;

    static void windowedSum(StreamsBuilder builder) {
        windowedSum(builder, EmitStrategy.onWindowUpdate());
    }

    static void windowedSumOnClose(StreamsBuilder builder) {
        windowedSum(builder, EmitStrategy.onWindowClose());
    }

    private static void windowedSum(StreamsBuilder builder, EmitStrategy emit) {
        builder.stream("events", Consumed.with(Serdes.String(), Serdes.Long()))
                .groupByKey()
                .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(10), Duration.ofSeconds(5))
                        .advanceBy(Duration.ofSeconds(5)))
                .emitStrategy(emit)
                .aggregate(() -> 0L, (key, value, sum) -> sum + value,
                        Materialized.<String, Long, org.apache.kafka.streams.state.WindowStore<
                                org.apache.kafka.common.utils.Bytes, byte[]>>as("windowed-sums")
                                .withValueSerde(Serdes.Long())
                                .withRetention(Duration.ofSeconds(20)))
                .toStream()
                .map((windowed, sum) -> KeyValue.pair(describe(windowed), sum))
                .to("sums", Produced.with(Serdes.String(), Serdes.Long()));
    }

    static void sessionCount(StreamsBuilder builder) {
        sessionCount(builder, EmitStrategy.onWindowUpdate());
    }

    static void sessionCountOnClose(StreamsBuilder builder) {
        sessionCount(builder, EmitStrategy.onWindowClose());
    }

    private static void sessionCount(StreamsBuilder builder, EmitStrategy emit) {
        builder.stream("events", Consumed.with(Serdes.String(), Serdes.Long()))
                .groupByKey()
                .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(4), Duration.ofSeconds(3)))
                .emitStrategy(emit)
                .count(Materialized.as("session-counts"))
                .toStream()
                .map((windowed, count) -> KeyValue.pair(describe(windowed), count))
                .to("sums", Produced.with(Serdes.String(), Serdes.Long()));
    }

    private static String describe(Windowed<String> windowed) {
        return windowed.key() + "@" + windowed.window().start() + "-" + windowed.window().end();
    }

    /** Events over about ten minutes of stream time, out of order by up to 6 s, one in 25 late by 40 s. */
    private static List<KeyValue<String, Long>> events(List<Instant> times) {
        Random random = new Random(23);
        List<KeyValue<String, Long>> events = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            long offset = i * 1000L + random.nextInt(7000) - 6000;
            if (random.nextInt(25) == 0) {
                offset -= 40_000;
            }
            times.add(START.plusMillis(Math.max(0, offset)));
            events.add(KeyValue.pair("key-" + random.nextInt(5), (long) random.nextInt(100)));
        }
        return events;
    }

    private List<KeyValue<String, Long>> run(Stores stores, Path stateDir, Consumer<StreamsBuilder> topology) {
        Properties props = TopologyRuns.config(stores, stateDir);
        // Emitting on window close checks for closed windows on every record, not once a wall-clock second
        // (the driver's wall clock stands still).
        props.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_WINDOWED_AGGREGATION, 0L);
        List<Instant> times = new ArrayList<>();
        List<KeyValue<String, Long>> events = events(times);
        try (TopologyTestDriver driver = new TopologyTestDriver(TopologyRuns.build(props, topology), props, START)) {
            TestInputTopic<String, Long> in = driver.createInputTopic("events",
                    Serdes.String().serializer(), Serdes.Long().serializer());
            TestOutputTopic<String, Long> out = driver.createOutputTopic("sums",
                    Serdes.String().deserializer(), Serdes.Long().deserializer());
            for (int i = 0; i < events.size(); i++) {
                in.pipeInput(events.get(i).key, events.get(i).value, times.get(i));
            }
            assertEquals(stores == Stores.VARVE, TopologyRuns.usedVarve(stateDir));
            return out.readKeyValuesToList();
        }
    }

    @Test
    void windowedAggregationWithGraceAndRetentionOnVarveMatchesRocksDb() {
        List<KeyValue<String, Long>> onVarve = run(Stores.VARVE, temp.resolve("varve"), WindowedTopologyTest::windowedSum);
        List<KeyValue<String, Long>> onRocksDb = run(Stores.ROCKSDB, temp.resolve("rocksdb"),
                WindowedTopologyTest::windowedSum);
        assertFalse(onVarve.isEmpty());
        assertEquals(onRocksDb, onVarve);
    }

    @Test
    void sessionWindowCountOnVarveMatchesRocksDb() {
        List<KeyValue<String, Long>> onVarve = run(Stores.VARVE, temp.resolve("varve"), WindowedTopologyTest::sessionCount);
        List<KeyValue<String, Long>> onRocksDb = run(Stores.ROCKSDB, temp.resolve("rocksdb"),
                WindowedTopologyTest::sessionCount);
        assertTrue(onVarve.stream().anyMatch(kv -> kv.value == null), "merged sessions leave tombstones");
        assertEquals(onRocksDb, onVarve);
    }

    @Test
    void windowedAggregationEmittingOnWindowCloseOnVarveMatchesRocksDb() {
        List<KeyValue<String, Long>> onVarve = run(Stores.VARVE, temp.resolve("varve"),
                WindowedTopologyTest::windowedSumOnClose);
        List<KeyValue<String, Long>> onRocksDb = run(Stores.ROCKSDB, temp.resolve("rocksdb"),
                WindowedTopologyTest::windowedSumOnClose);
        assertFalse(onVarve.isEmpty());
        assertEquals(perKey(onRocksDb), perKey(onVarve));
    }

    @Test
    void sessionWindowCountEmittingOnWindowCloseOnVarveMatchesRocksDb() {
        List<KeyValue<String, Long>> onVarve = run(Stores.VARVE, temp.resolve("varve"),
                WindowedTopologyTest::sessionCountOnClose);
        List<KeyValue<String, Long>> onRocksDb = run(Stores.ROCKSDB, temp.resolve("rocksdb"),
                WindowedTopologyTest::sessionCountOnClose);
        assertFalse(onVarve.isEmpty());
        assertEquals(perKey(onRocksDb), perKey(onVarve));
    }

    /**
     * Each record key's results in the order they came out. Emitting on window close, one check emits the
     * closed windows of every key: RocksDB's time-ordered store yields them by time, then key, Varve's
     * key-ordered segments by key, then time; what each key's consumers see is the same.
     */
    private static Map<String, List<KeyValue<String, Long>>> perKey(List<KeyValue<String, Long>> output) {
        Map<String, List<KeyValue<String, Long>>> byKey = new TreeMap<>();
        for (KeyValue<String, Long> record : output) {
            byKey.computeIfAbsent(record.key.substring(0, record.key.indexOf('@')), k -> new ArrayList<>())
                    .add(record);
        }
        return byKey;
    }
}
