package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveSessionStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

/** Supplies Varve session stores to {@code Stores.sessionStoreBuilder}; obtain one from {@link VarveStores}. */
public final class VarveSessionBytesStoreSupplier extends SegmentedStoreSupplier
        implements SessionBytesStoreSupplier {

    VarveSessionBytesStoreSupplier(String name, long retentionPeriod, long segmentInterval) {
        super(name, retentionPeriod, segmentInterval);
    }

    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new VarveSessionStore(name, retentionPeriod, segmentInterval, VarveStoreConfig::options);
    }
}
