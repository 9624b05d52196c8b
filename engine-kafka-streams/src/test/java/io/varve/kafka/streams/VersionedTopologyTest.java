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
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stream–table join against a versioned table, through {@code TopologyTestDriver}, on Varve's versioned store
 * and on Kafka's RocksDB one with the same input. Records arrive out of order, so each click joins the region
 * that held at its own timestamp (KIP-914), which only a versioned table can answer; table updates that come
 * later than the history retention are dropped. The outputs must be identical, also when the Varve run is
 * stopped half-way and resumed on the state it left.
 */
class VersionedTopologyTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration HISTORY = Duration.ofMinutes(2);

    @TempDir
    Path temp;

    static void versionedJoin(StreamsBuilder builder, VersionedBytesStoreSupplier table) {
        KTable<String, String> regions = builder.table("user-regions",
                Consumed.with(Serdes.String(), Serdes.String()), Materialized.as(table));
        builder.stream("clicks", Consumed.with(Serdes.String(), Serdes.String()))
                .join(regions, (click, region) -> click + "@" + region)
                .to("clicks-by-region", Produced.with(Serdes.String(), Serdes.String()));
    }

    private static VersionedBytesStoreSupplier supplier(Stores stores) {
        return stores == Stores.VARVE
                ? VarveStores.versionedKeyValueStore("user-regions-store", HISTORY)
                : org.apache.kafka.streams.state.Stores.persistentVersionedKeyValueStore("user-regions-store", HISTORY);
    }

    private record Run(List<KeyValue<String, String>> output, boolean usedVarve) {
    }

    private Run joinClicks(Stores stores, Path stateDir, int stopAfter) {
        Properties props = stopAfter == Integer.MAX_VALUE ? TopologyRuns.config(stores, stateDir)
                : TopologyRuns.resumableConfig(stores, stateDir);
        Topology topology = TopologyRuns.build(props, builder -> versionedJoin(builder, supplier(stores)));
        Random random = new Random(23);
        List<KeyValue<String, String>> events = new ArrayList<>();
        List<Instant> times = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            String user = "user-" + random.nextInt(12);
            boolean regionUpdate = random.nextInt(3) == 0;
            String value = regionUpdate ? (random.nextInt(10) == 0 ? null : "region-" + random.nextInt(6))
                    : "click-" + i;
            events.add(KeyValue.pair((regionUpdate ? "R" : "C") + user, value));
            // Up to three minutes late: within and beyond the two minutes of history.
            times.add(START.plusSeconds(i * 2L - random.nextInt(180)));
        }
        List<KeyValue<String, String>> output = new ArrayList<>();
        boolean usedVarve = false;
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
                topic.pipeInput(event.key.substring(1), event.value, times.get(i));
            }
            output.addAll(out.readKeyValuesToList());
            usedVarve |= TopologyRuns.usedVarve(stateDir);
            if (to == events.size()) {
                driver.close();
            } else {
                TopologyRuns.closeKeepingState(driver, stateDir);
            }
            from = to;
        }
        return new Run(output, usedVarve);
    }

    @Test
    void versionedJoinOnVarveMatchesRocksDb() {
        Run onVarve = joinClicks(Stores.VARVE, temp.resolve("varve"), Integer.MAX_VALUE);
        Run onRocksDb = joinClicks(Stores.ROCKSDB, temp.resolve("rocksdb"), Integer.MAX_VALUE);
        assertTrue(onVarve.usedVarve(), "the versioned table is on Varve");
        assertEquals(onRocksDb.output(), onVarve.output());
        assertTrue(onVarve.output().size() > 50, "most clicks find a region");
    }

    @Test
    void versionedJoinResumedMidStreamOnVarveMatchesAnUninterruptedRocksDbRun() {
        Run resumed = joinClicks(Stores.VARVE, temp.resolve("varve-resumed"), 130);
        Run onRocksDb = joinClicks(Stores.ROCKSDB, temp.resolve("rocksdb"), Integer.MAX_VALUE);
        assertEquals(onRocksDb.output(), resumed.output());
    }
}
