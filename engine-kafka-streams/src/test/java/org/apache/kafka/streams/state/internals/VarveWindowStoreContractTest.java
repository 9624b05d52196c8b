package org.apache.kafka.streams.state.internals;

import io.varve.kafka.streams.VarveStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kafka's own window store contract against Varve's window store. It lives in Kafka's package because the
 * contract's factory method is package-private. Each store built gets a name of its own: some cases build a
 * second store in the same state directory while the first is open, which Kafka's RocksDB store survives only
 * because it opens segment databases on first write, whereas a Varve store opens (and locks) its database in
 * {@code init}.
 */
class VarveWindowStoreContractTest extends AbstractWindowBytesStoreTest {

    private static final AtomicInteger STORES = new AtomicInteger();

    @Override
    <K, V> WindowStore<K, V> buildWindowStore(long retentionPeriod, long windowSize, boolean retainDuplicates,
                                              Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.windowStoreBuilder(
                        VarveStores.windowStore("varve-window-store-" + STORES.incrementAndGet(), Duration.ofMillis(retentionPeriod),
                                Duration.ofMillis(windowSize), retainDuplicates),
                        keySerde, valueSerde)
                .build();
    }
}
