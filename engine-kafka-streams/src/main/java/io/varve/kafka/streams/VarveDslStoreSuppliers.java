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
 * <p>Windowed aggregations that emit on window close ({@code EmitStrategy.onWindowClose()}) get Kafka's
 * time-ordered stores on RocksDB. Here they get the same key-ordered window and session stores as any other,
 * reading what the time-ordered stores read: each key's closed windows come out as on RocksDB, but one emission
 * lists them key by key where RocksDB lists them by time.
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
        EmitStrategy emit = params.emitStrategy();
        boolean emitsOnClose = emit != null && emit.type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE;
        return VarveStores.window(params.name(), params.retentionPeriod(), params.windowSize(),
                params.retainDuplicates(), params.dslStoreFormat() != DslStoreFormat.PLAIN, emitsOnClose);
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        return VarveStores.sessionStore(params.name(), params.retentionPeriod());
    }
}
