package io.varve.kafka.streams;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.AbstractKeyValueStoreTest;

/** Kafka's own key-value store contract, run against a Varve store through Kafka's store builder. */
class VarveKeyValueStoreContractTest extends AbstractKeyValueStoreTest {

    @SuppressWarnings("unchecked")
    @Override
    protected <K, V> KeyValueStore<K, V> createKeyValueStore(StateStoreContext context) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(
                        VarveStores.keyValueStore("my-store"),
                        (Serde<K>) context.keySerde(),
                        (Serde<V>) context.valueSerde())
                .build();
        store.init(context, store);
        return store;
    }
}
