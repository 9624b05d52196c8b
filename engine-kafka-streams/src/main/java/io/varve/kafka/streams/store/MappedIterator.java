package io.varve.kafka.streams.store;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStoreIterator;

import java.util.function.Function;

/**
 * An iterator over store keys presented with another key type: Kafka's window iterators (timestamps, or
 * windowed keys) over the raw entries of a segmented store.
 */
class MappedIterator<K> implements KeyValueIterator<K, byte[]> {

    private final KeyValueIterator<Bytes, byte[]> inner;
    private final Function<Bytes, K> keyMapper;

    MappedIterator(KeyValueIterator<Bytes, byte[]> inner, Function<Bytes, K> keyMapper) {
        this.inner = inner;
        this.keyMapper = keyMapper;
    }

    @Override
    public boolean hasNext() {
        return inner.hasNext();
    }

    @Override
    public KeyValue<K, byte[]> next() {
        KeyValue<Bytes, byte[]> entry = inner.next();
        return KeyValue.pair(keyMapper.apply(entry.key), entry.value);
    }

    @Override
    public K peekNextKey() {
        return keyMapper.apply(inner.peekNextKey());
    }

    @Override
    public void close() {
        inner.close();
    }

    /** The values of one key's windows, keyed by window start. */
    static final class Timestamps extends MappedIterator<Long> implements WindowStoreIterator<byte[]> {
        Timestamps(KeyValueIterator<Bytes, byte[]> inner, Function<Bytes, Long> keyMapper) {
            super(inner, keyMapper);
        }
    }
}
