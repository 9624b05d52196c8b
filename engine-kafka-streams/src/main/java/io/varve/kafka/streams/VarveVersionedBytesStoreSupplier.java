package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveVersionedStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.internals.VersionedKeyValueToBytesStoreAdapter;

import java.util.Objects;

/**
 * Supplies Varve versioned key-value stores to {@code Stores.versionedKeyValueStoreBuilder} or to
 * {@code Materialized.as(...)}; obtain one from {@link VarveStores#versionedKeyValueStore}. Kafka's builder asks
 * for a {@code VersionedBytesStore}, so the store goes out behind Kafka's own adapter, as Kafka's RocksDB
 * versioned store does.
 */
public final class VarveVersionedBytesStoreSupplier implements VersionedBytesStoreSupplier {

    private final String name;
    private final long historyRetentionMs;
    private final long segmentIntervalMs;

    VarveVersionedBytesStoreSupplier(String name, long historyRetentionMs, long segmentIntervalMs) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.historyRetentionMs = historyRetentionMs;
        this.segmentIntervalMs = segmentIntervalMs;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long historyRetentionMs() {
        return historyRetentionMs;
    }

    /** The span of validTo timestamps one segment of older versions covers; expiry drops whole segments. */
    public long segmentIntervalMs() {
        return segmentIntervalMs;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new VersionedKeyValueToBytesStoreAdapter(
                new VarveVersionedStore(name, historyRetentionMs, segmentIntervalMs, VarveStoreConfig::options));
    }

    @Override
    public String metricsScope() {
        return VarveStores.METRICS_SCOPE;
    }
}
