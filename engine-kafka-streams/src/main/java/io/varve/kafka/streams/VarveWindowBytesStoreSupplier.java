package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveTimestampedWindowStore;
import io.varve.kafka.streams.store.VarveWindowStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/** Supplies Varve window stores to {@code Stores.windowStoreBuilder}; obtain one from {@link VarveStores}. */
public final class VarveWindowBytesStoreSupplier extends SegmentedStoreSupplier
        implements WindowBytesStoreSupplier {

    private final long windowSize;
    private final boolean retainDuplicates;
    private final boolean timestamped;
    private final boolean emitsOnClose;

    VarveWindowBytesStoreSupplier(String name, long retentionPeriod, long segmentInterval, long windowSize,
                                  boolean retainDuplicates, boolean timestamped, boolean emitsOnClose) {
        super(name, retentionPeriod, segmentInterval);
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
        this.timestamped = timestamped;
        this.emitsOnClose = emitsOnClose;
    }

    @Override
    public WindowStore<Bytes, byte[]> get() {
        return timestamped
                ? new VarveTimestampedWindowStore(name, retentionPeriod, segmentInterval, windowSize,
                        retainDuplicates, emitsOnClose, VarveStoreConfig::options)
                : new VarveWindowStore(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates,
                        emitsOnClose, VarveStoreConfig::options);
    }

    @Override
    public long windowSize() {
        return windowSize;
    }

    @Override
    public boolean retainDuplicates() {
        return retainDuplicates;
    }
}
