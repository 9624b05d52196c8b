package io.varve.kafka.streams;

import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/**
 * Factory of Varve store suppliers, the counterpart of Kafka's {@code Stores.persistent...Store} methods: pass
 * what these return to {@code Stores.keyValueStoreBuilder} and its siblings. To move every store of a DSL
 * topology at once, configure {@link VarveDslStoreSuppliers} instead.
 */
public final class VarveStores {

    /** The scope under which Kafka's metered layers report these stores' metrics. */
    public static final String METRICS_SCOPE = "varve";

    private VarveStores() {
    }

    /** A persistent key-value store of raw bytes. */
    public static KeyValueBytesStoreSupplier keyValueStore(String name) {
        return new VarveKeyValueBytesStoreSupplier(name, false);
    }

    /** A persistent key-value store whose values carry Kafka's timestamped format. */
    public static KeyValueBytesStoreSupplier timestampedKeyValueStore(String name) {
        return new VarveKeyValueBytesStoreSupplier(name, true);
    }
}
