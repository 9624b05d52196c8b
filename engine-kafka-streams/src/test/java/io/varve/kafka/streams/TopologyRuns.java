package io.varve.kafka.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Runs one topology through {@code TopologyTestDriver} on either store family: the same topology code, built
 * under a configuration that differs only in {@code dsl.store.suppliers.class}.
 */
final class TopologyRuns {

    enum Stores { VARVE, ROCKSDB }

    private TopologyRuns() {
    }

    static Properties config(Stores stores, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "varve-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        // No record cache: every update reaches the output, so the runs compare record by record.
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, stores == Stores.VARVE
                ? VarveDslStoreSuppliers.class : BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class);
        return props;
    }

    static Topology build(Properties props, Consumer<StreamsBuilder> topology) {
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        topology.accept(builder);
        return builder.build();
    }

    /** True when some store of the run kept its data in a Varve database under {@code stateDir}. */
    static boolean usedVarve(Path stateDir) {
        try (Stream<Path> paths = Files.walk(stateDir)) {
            return paths.anyMatch(p -> p.getFileName().toString().equals("varve") && Files.isDirectory(p));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The configuration of a run that {@link #closeKeepingState} may stop and resume: its Varve stores keep their
     * write-ahead log, so the state directory after a commit holds every write made before it. The driver
     * restores nothing from a changelog, which a store without the log (the default) would need after a crash;
     * that path is {@code ProcessCrashTest}'s subject.
     */
    static Properties resumableConfig(Stores stores, Path stateDir) {
        Properties props = config(stores, stateDir);
        props.put(VarveStoreConfig.WRITE_AHEAD_LOG, true);
        return props;
    }

    /**
     * Closes {@code driver} and brings back its state directory as it stood after the driver's last commit
     * (the driver commits after every record it is given). {@code TopologyTestDriver} deletes its task
     * directories when it closes, so the state is copied aside first; the copy is what a restart after a crash
     * right after that commit would find.
     */
    static void closeKeepingState(TopologyTestDriver driver, Path stateDir) {
        Path saved = stateDir.resolveSibling(stateDir.getFileName() + "-saved");
        copy(stateDir, saved);
        driver.close();
        TestDirs.delete(stateDir);
        copy(saved, stateDir);
        TestDirs.delete(saved);
    }

    private static void copy(Path from, Path to) {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (!source.getFileName().toString().equals(".lock")) {
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
