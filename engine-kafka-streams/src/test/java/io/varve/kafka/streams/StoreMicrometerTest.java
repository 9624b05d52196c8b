package io.varve.kafka.streams;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varve.kafka.streams.TopologyRuns.Stores;
import io.varve.kafka.streams.store.VarveKeyValueStore;
import io.varve.kafka.streams.store.VarveVersionedStore;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stores publish their engine meters through Micrometer: to the registry the configuration names, to
 * Micrometer's global registry by default, or nowhere; and they work without Micrometer on the class path.
 */
class StoreMicrometerTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path temp;

    /** The directories (the {@code db} tag) of the stores with meters in {@code registry}. */
    private static Set<String> databases(io.micrometer.core.instrument.MeterRegistry registry) {
        return registry.getMeters().stream()
                .map(m -> m.getId().getTag("db"))
                .filter(db -> db != null)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static String storeDir(Path stateDir, String store) {
        return stateDir.resolve(VarveKeyValueStore.STATE_SUBDIRECTORY).resolve(store).toString();
    }

    @Test
    void aStorePublishesItsEngineMetersToTheConfiguredRegistryUntilItCloses() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // With the write-ahead log on, its byte count shows the store's writes reaching the registry.
        TestStoreContext context = new TestStoreContext(temp, Map.of(VarveStoreConfig.METER_REGISTRY, registry,
                VarveStoreConfig.WRITE_AHEAD_LOG, true));
        VarveKeyValueStore store = new VarveKeyValueStore("counts", VarveStoreConfig::options);
        store.init(context, store);
        String db = storeDir(temp, "counts");
        try {
            for (int i = 0; i < 100; i++) {
                store.put(Bytes.wrap(("key-" + i).getBytes(StandardCharsets.UTF_8)), new byte[100]);
            }
            Meter memtable = registry.find("varve.memtable.size").tag("db", db).meter();
            assertNotNull(memtable, "meters of " + db + " in " + databases(registry));
            assertTrue(registry.get("varve.memtable.size").tag("db", db).gauge().value() > 0);
            assertTrue(registry.get("varve.wal.written").tag("db", db).functionCounter().count() > 10_000);
        } finally {
            store.close();
        }
        assertEquals(Set.of(), databases(registry), "a closed store takes its meters away");
    }

    @Test
    void everyStoreOfATopologyPublishesToTheRegistryInTheStreamsConfiguration() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Path stateDir = temp.resolve("state");
        Properties props = TopologyRuns.config(Stores.VARVE, stateDir);
        props.put(VarveStoreConfig.METER_REGISTRY, registry);
        props.put(VarveStoreConfig.WRITE_AHEAD_LOG, true); // its byte count shows the writes in the registry
        Topology topology = TopologyRuns.build(props, DslTopologyTest::wordCount);
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, START)) {
            TestInputTopic<String, String> lines = driver.createInputTopic("lines",
                    Serdes.String().serializer(), Serdes.String().serializer());
            lines.pipeInput("a", "alpha beta alpha", START);
            Set<String> databases = databases(registry);
            assertEquals(1, databases.size(), databases.toString());
            assertTrue(databases.iterator().next().endsWith(File.separator + "word-counts"), databases.toString());
            assertTrue(registry.get("varve.wal.written").functionCounter().count() > 0);
        }
        assertEquals(Set.of(), databases(registry));
    }

    @Test
    void withoutASettingTheMetersGoToMicrometersGlobalRegistry() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.globalRegistry.add(registry);
        VarveVersionedStore store = new VarveVersionedStore("versions", 1_000, 100, VarveStoreConfig::options);
        try {
            store.init(new TestStoreContext(temp), store);
            store.put(Bytes.wrap(new byte[] {1}), new byte[] {2}, 10);
            assertTrue(databases(registry).contains(storeDir(temp, "versions")), databases(registry).toString());
        } finally {
            store.close();
            Metrics.globalRegistry.remove(registry);
        }
    }

    @Test
    void noneKeepsTheMetersOutOfEveryRegistry() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.globalRegistry.add(registry);
        VarveKeyValueStore store = new VarveKeyValueStore("quiet", VarveStoreConfig::options);
        try {
            store.init(new TestStoreContext(temp, Map.of(VarveStoreConfig.METER_REGISTRY, "none")), store);
            store.put(Bytes.wrap(new byte[] {1}), new byte[] {2});
            assertEquals(Set.of(), databases(registry));
        } finally {
            store.close();
            Metrics.globalRegistry.remove(registry);
        }
    }

    @Test
    void aSettingThatIsNoRegistryIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VarveStoreConfig.options(Map.of(VarveStoreConfig.METER_REGISTRY, 42)));
        assertTrue(e.getMessage().contains(VarveStoreConfig.METER_REGISTRY), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> VarveStoreConfig.options(Map.of(VarveStoreConfig.METER_REGISTRY, "prometheus")));
    }

    /**
     * A child JVM whose class path lacks Micrometer opens, writes, reads and closes a store under the default
     * setting ({@link NoMicrometerProcess}): Micrometer is optional at run time.
     */
    @Test
    void storesWorkWithoutMicrometerOnTheClassPath() throws IOException, InterruptedException {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("micrometer"))
                .collect(Collectors.joining(File.pathSeparator));
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process child = new ProcessBuilder(List.of(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED",
                "-cp", classPath, NoMicrometerProcess.class.getName(), temp.resolve("child").toString()))
                .redirectErrorStream(true).start();
        String output;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            output = reader.lines().collect(Collectors.joining("\n"));
        }
        assertEquals(0, child.waitFor(), output);
        assertTrue(output.contains("micrometer absent") && output.contains("value read back"), output);
    }
}
