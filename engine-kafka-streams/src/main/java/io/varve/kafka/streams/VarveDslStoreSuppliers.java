package io.varve.kafka.streams;

import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.kstream.EmitStrategy;
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
 *
 * <p>Windowed aggregations that emit on window close ({@code EmitStrategy.onWindowClose()}) need stores that
 * iterate all keys in time order; Varve's are key-ordered within each segment, so such an operator is refused
 * when the topology is built, naming the store: give it a store of its own through {@code Materialized}.
 *
 * <p>Versioned tables are not asked of a {@code DslStoreSuppliers}: Kafka's DSL makes a table versioned only
 * when its {@code Materialized} names a versioned supplier, so such a table moves to Varve with
 * {@code Materialized.as(VarveStores.versionedKeyValueStore(name, historyRetention))}.
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
        refuseEmitOnClose(params.emitStrategy(), params.name());
        return params.dslStoreFormat() == DslStoreFormat.PLAIN
                ? VarveStores.windowStore(params.name(), params.retentionPeriod(), params.windowSize(),
                        params.retainDuplicates())
                : VarveStores.timestampedWindowStore(params.name(), params.retentionPeriod(), params.windowSize(),
                        params.retainDuplicates());
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        refuseEmitOnClose(params.emitStrategy(), params.name());
        return VarveStores.sessionStore(params.name(), params.retentionPeriod());
    }

    private static void refuseEmitOnClose(EmitStrategy strategy, String storeName) {
        if (strategy != null && strategy.type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE) {
            throw new UnsupportedOperationException("Varve has no time-ordered window or session store, which "
                    + "emitting on window close needs; materialize store " + storeName
                    + " with a supplier of its own");
        }
    }
}
