package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveSessionStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

import java.util.Objects;

/** Supplies Varve session stores to {@code Stores.sessionStoreBuilder}; obtain one from {@link VarveStores}. */
public final class VarveSessionBytesStoreSupplier implements SessionBytesStoreSupplier {

    private final String name;
    private final long retentionPeriod;
    private final long segmentInterval;

    VarveSessionBytesStoreSupplier(String name, long retentionPeriod, long segmentInterval) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new VarveSessionStore(name, retentionPeriod, segmentInterval, VarveStoreConfig::options);
    }

    @Override
    public String metricsScope() {
        return VarveStores.METRICS_SCOPE;
    }

    @Override
    public long segmentIntervalMs() {
        return segmentInterval;
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }
}
