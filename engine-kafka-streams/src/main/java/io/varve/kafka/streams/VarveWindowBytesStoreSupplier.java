package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveTimestampedWindowStore;
import io.varve.kafka.streams.store.VarveWindowStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

import java.util.Objects;

/** Supplies Varve window stores to {@code Stores.windowStoreBuilder}; obtain one from {@link VarveStores}. */
public final class VarveWindowBytesStoreSupplier implements WindowBytesStoreSupplier {

    private final String name;
    private final long retentionPeriod;
    private final long segmentInterval;
    private final long windowSize;
    private final boolean retainDuplicates;
    private final boolean timestamped;

    VarveWindowBytesStoreSupplier(String name, long retentionPeriod, long segmentInterval, long windowSize,
                                  boolean retainDuplicates, boolean timestamped) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
        this.timestamped = timestamped;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public WindowStore<Bytes, byte[]> get() {
        return timestamped
                ? new VarveTimestampedWindowStore(name, retentionPeriod, segmentInterval, windowSize,
                        retainDuplicates, VarveStoreConfig::options)
                : new VarveWindowStore(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates,
                        VarveStoreConfig::options);
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
    public long windowSize() {
        return windowSize;
    }

    @Override
    public boolean retainDuplicates() {
        return retainDuplicates;
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }
}
