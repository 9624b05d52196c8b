package io.varve.kafka.streams;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.AbstractKeyValueStoreTest;

/**
 * Kafka's key-value store contract against the timestamped Varve store, seen through Kafka's plain key-value
 * builder: the builder wraps a timestamped bytes store in its adapter, which strips and adds the timestamp.
 */
class VarveTimestampedKeyValueStoreContractTest extends AbstractKeyValueStoreTest {

    @SuppressWarnings("unchecked")
    @Override
    protected <K, V> KeyValueStore<K, V> createKeyValueStore(StateStoreContext context) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(
                        VarveStores.timestampedKeyValueStore("my-timestamped-store"),
                        (Serde<K>) context.keySerde(),
                        (Serde<V>) context.valueSerde())
                .build();
        store.init(context, store);
        return store;
    }
}
