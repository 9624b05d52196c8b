package io.varve.kafka.streams.store;

import org.apache.kafka.streams.state.TimestampedBytesStore;

/** The window store whose values carry Kafka's timestamped format (see {@link VarveTimestampedKeyValueStore}). */
public class VarveTimestampedWindowStore extends VarveWindowStore implements TimestampedBytesStore {

    public VarveTimestampedWindowStore(String name, long retentionPeriod, long segmentInterval, long windowSize,
                                       boolean retainDuplicates, boolean emitsOnClose, StoreOptions options) {
        super(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, emitsOnClose, options);
    }
}
