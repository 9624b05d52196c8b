package io.varve.kafka.streams;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;

import java.io.File;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The least a raw bytes store needs to open outside a Kafka Streams task: a state directory, the application's
 * configuration and a place to register its restore callback. Model tests drive stores through it directly.
 */
final class TestStoreContext implements StateStoreContext {

    private final File stateDir;
    private final Map<String, Object> appConfigs;
    StateRestoreCallback restoreCallback;

    TestStoreContext(Path stateDir) {
        this(stateDir, Map.of());
    }

    TestStoreContext(Path stateDir, Map<String, Object> appConfigs) {
        this.stateDir = stateDir.toFile();
        this.appConfigs = new HashMap<>(appConfigs);
    }

    @Override
    public String applicationId() {
        return "model-test";
    }

    @Override
    public TaskId taskId() {
        return new TaskId(0, 0);
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
        return Optional.empty();
    }

    @Override
    public Serde<?> keySerde() {
        return Serdes.ByteArray();
    }

    @Override
    public Serde<?> valueSerde() {
        return Serdes.ByteArray();
    }

    @Override
    public File stateDir() {
        return stateDir;
    }

    /** None: stores must work without Kafka's metrics (they then count nothing). */
    @Override
    public StreamsMetrics metrics() {
        return null;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback) {
        this.restoreCallback = stateRestoreCallback;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback, CommitCallback checkpoint) {
        this.restoreCallback = stateRestoreCallback;
    }

    @Override
    public Map<String, Object> appConfigs() {
        return appConfigs;
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
        Map<String, Object> result = new HashMap<>();
        appConfigs.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                result.put(k.substring(prefix.length()), v);
            }
        });
        return result;
    }
}
