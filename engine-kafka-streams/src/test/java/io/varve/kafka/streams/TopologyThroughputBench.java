package io.varve.kafka.streams;

import io.varve.kafka.streams.TopologyRuns.Stores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Properties;
import java.util.Random;
import java.util.function.Consumer;

/**
 * A throughput harness, not a test: it is named so that {@code mvn verify} never runs it. It pushes
 * {@code bench.records} records through the four topologies of {@link DslTopologyTest} and
 * {@link WindowedTopologyTest} on the stores named by {@code bench.stores} (VARVE or ROCKSDB) and prints records
 * per second per topology and the JVM's resident memory at the end. Run one store family per JVM so the
 * resident figure is that family's (command in docs/kafka-streams.md, "Measuring"). {@code bench.writeAheadLog}
 * turns the Varve stores' write-ahead log on (off by default, as Kafka runs RocksDB's).
 */
class TopologyThroughputBench {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path temp;

    @Test
    void measure() throws IOException {
        Stores stores = Stores.valueOf(System.getProperty("bench.stores", "VARVE"));
        int records = Integer.getInteger("bench.records", 100_000);
        report(stores, "word-count", records, run(stores, "word-count", DslTopologyTest::wordCount, records,
                (driver, n) -> {
                    TestInputTopic<String, String> in = driver.createInputTopic("lines",
                            Serdes.String().serializer(), Serdes.String().serializer());
                    Random random = new Random(1);
                    for (int i = 0; i < n; i++) {
                        in.pipeInput("k", "w" + random.nextInt(10_000) + " w" + random.nextInt(10_000),
                                START.plusMillis(i));
                    }
                }));
        report(stores, "stream-table-join", records, run(stores, "join", DslTopologyTest::streamTableJoin, records,
                (driver, n) -> {
                    TestInputTopic<String, String> regions = driver.createInputTopic("user-regions",
                            Serdes.String().serializer(), Serdes.String().serializer());
                    TestInputTopic<String, String> clicks = driver.createInputTopic("clicks",
                            Serdes.String().serializer(), Serdes.String().serializer());
                    Random random = new Random(2);
                    for (int i = 0; i < n; i++) {
                        String user = "user-" + random.nextInt(10_000);
                        if (i % 4 == 0) {
                            regions.pipeInput(user, "region-" + random.nextInt(50), START.plusMillis(i));
                        } else {
                            clicks.pipeInput(user, "click-" + i, START.plusMillis(i));
                        }
                    }
                }));
        report(stores, "windowed-aggregation", records, run(stores, "windowed", WindowedTopologyTest::windowedSum,
                records, (driver, n) -> pipeEvents(driver, n)));
        report(stores, "session-count", records, run(stores, "session", WindowedTopologyTest::sessionCount,
                records, (driver, n) -> pipeEvents(driver, n)));
        System.out.printf("%s resident memory at end: %s%n", stores, residentMemory());
    }

    private static void pipeEvents(TopologyTestDriver driver, int n) {
        TestInputTopic<String, Long> in = driver.createInputTopic("events",
                Serdes.String().serializer(), Serdes.Long().serializer());
        Random random = new Random(3);
        for (int i = 0; i < n; i++) {
            in.pipeInput("key-" + random.nextInt(1_000), (long) random.nextInt(100), START.plusMillis(i * 20L));
        }
    }

    interface Feed {
        void feed(TopologyTestDriver driver, int records);
    }

    /**
     * Times one run of {@code records} records, after an unmeasured run of a fifth as many on a state directory of
     * its own: the JIT compiles both store families' code and Kafka's before the clock starts, so the first
     * topology measured does not carry the warm-up that the later ones are spared.
     */
    private long run(Stores stores, String name, Consumer<StreamsBuilder> topology, int records, Feed feed) {
        once(stores, name + "-warm-up", topology, Math.max(1, records / 5), feed);
        return once(stores, name, topology, records, feed);
    }

    private long once(Stores stores, String name, Consumer<StreamsBuilder> topology, int records, Feed feed) {
        Path stateDir = temp.resolve(name);
        Properties props = TopologyRuns.config(stores, stateDir);
        // -Dbench.writeAheadLog=true measures Varve's stores with their log on (RocksDB's stay as Kafka sets them)
        props.put(VarveStoreConfig.WRITE_AHEAD_LOG, Boolean.getBoolean("bench.writeAheadLog"));
        try (TopologyTestDriver driver = new TopologyTestDriver(TopologyRuns.build(props, topology), props, START)) {
            long began = System.nanoTime();
            feed.feed(driver, records);
            return System.nanoTime() - began;
        }
    }

    private static void report(Stores stores, String topology, int records, long nanos) {
        System.out.printf("%s %-22s %,d records in %.2f s: %,.0f records/s%n", stores, topology, records,
                nanos / 1e9, records / (nanos / 1e9));
    }

    private static String residentMemory() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(line -> line.startsWith("VmRSS:")).findFirst().orElse("VmRSS: unknown").substring(6).trim();
    }
}
