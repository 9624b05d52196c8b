package io.varve.kafka.streams;

import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * The stores of every DSL operator on Varve (KIP-954). One line moves an application over:
 * <pre>{@code props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, VarveDslStoreSuppliers.class);}</pre>
 * The topology must be built with that configuration ({@code new StreamsBuilder(new TopologyConfig(new
 * StreamsConfig(props)))}); a {@code Materialized} that names its own supplier keeps it.
 */
public class VarveDslStoreSuppliers implements DslStoreSuppliers {

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        return params.dslStoreFormat() == DslStoreFormat.PLAIN
                ? VarveStores.keyValueStore(params.name())
                : VarveStores.timestampedKeyValueStore(params.name());
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        return params.dslStoreFormat() == DslStoreFormat.PLAIN
                ? VarveStores.windowStore(params.name(), params.retentionPeriod(), params.windowSize(),
                        params.retainDuplicates())
                : VarveStores.timestampedWindowStore(params.name(), params.retentionPeriod(), params.windowSize(),
                        params.retainDuplicates());
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        return VarveStores.sessionStore(params.name(), params.retentionPeriod());
    }
}
