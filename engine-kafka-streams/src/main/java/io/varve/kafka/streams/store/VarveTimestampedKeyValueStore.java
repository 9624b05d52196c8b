package io.varve.kafka.streams.store;

import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * The key-value store whose values carry Kafka's timestamped format (an 8-byte big-endian timestamp before the
 * value bytes, as in Kafka's RocksDB timestamped store). The format is written and read by Kafka's timestamped
 * store layers; marking the store {@link TimestampedBytesStore} tells them it already holds that format, so
 * no adapter converts values on the way.
 */
public class VarveTimestampedKeyValueStore extends VarveKeyValueStore implements TimestampedBytesStore {

    public VarveTimestampedKeyValueStore(String name, StoreOptions options) {
        super(name, options);
    }
}
