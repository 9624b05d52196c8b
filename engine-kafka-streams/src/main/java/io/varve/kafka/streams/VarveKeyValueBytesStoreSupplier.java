package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveKeyValueStore;
import io.varve.kafka.streams.store.VarveTimestampedKeyValueStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Objects;

/**
 * Supplies Varve key-value stores to {@code Stores.keyValueStoreBuilder} or
 * {@code Stores.timestampedKeyValueStoreBuilder}; obtain one from {@link VarveStores}.
 */
public final class VarveKeyValueBytesStoreSupplier implements KeyValueBytesStoreSupplier {

    private final String name;
    private final boolean timestamped;

    VarveKeyValueBytesStoreSupplier(String name, boolean timestamped) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.timestamped = timestamped;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return timestamped
                ? new VarveTimestampedKeyValueStore(name, VarveStoreConfig::options)
                : new VarveKeyValueStore(name, VarveStoreConfig::options);
    }

    @Override
    public String metricsScope() {
        return VarveStores.METRICS_SCOPE;
    }
}
