package io.varve.kafka.streams.store;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.WindowKeySchema;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Kafka Streams' persistent window store of raw bytes on Varve: keys in Kafka's window key layout
 * ({@code key | window start (8 bytes) | sequence number (4 bytes)}, ordered by key, then start) inside
 * time segments of a {@link SegmentedStore}. With {@code retainDuplicates} (stream-stream joins) every put gets
 * a new sequence number so equal keys and starts are all kept, and a null value writes nothing, as in Kafka.
 */
public class VarveWindowStore extends SegmentedStateStore implements WindowStore<Bytes, byte[]> {

    private static final int SUFFIX = Long.BYTES + Integer.BYTES;

    private final long windowSize;
    private final boolean retainDuplicates;
    private int sequence;

    public VarveWindowStore(String name, long retentionPeriod, long segmentInterval, long windowSize,
                            boolean retainDuplicates, StoreOptions options) {
        this(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, false, options);
    }

    /**
     * @param emitsOnClose whether the store serves a windowed aggregation that emits on window close, which
     *                     Kafka gives a time-ordered store: reads then see what that store sees (see
     *                     {@link SegmentedStore})
     */
    public VarveWindowStore(String name, long retentionPeriod, long segmentInterval, long windowSize,
                            boolean retainDuplicates, boolean emitsOnClose, StoreOptions options) {
        super(name, new SegmentedStore(name, retentionPeriod, segmentInterval, new WindowKeySchema(), false,
                emitsOnClose, options));
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
    }

    @Override
    public void put(Bytes key, byte[] value, long windowStartTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        if (value == null && retainDuplicates) {
            return;
        }
        if (retainDuplicates) {
            sequence = (sequence + 1) & Integer.MAX_VALUE;
        }
        segments.put(WindowKeySchema.toStoreKeyBinary(key, windowStartTimestamp, sequence), value);
        updatePosition();
    }

    @Override
    public byte[] fetch(Bytes key, long time) {
        Objects.requireNonNull(key, "key cannot be null");
        return segments.get(WindowKeySchema.toStoreKeyBinary(key, time, sequence));
    }

    @Override
    public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
        Objects.requireNonNull(key, "key cannot be null");
        return new MappedIterator.Timestamps(segments.fetch(key, timeFrom, timeTo, true), VarveWindowStore::windowStart);
    }

    @Override
    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
        Objects.requireNonNull(key, "key cannot be null");
        return new MappedIterator.Timestamps(segments.fetch(key, timeFrom, timeTo, false), VarveWindowStore::windowStart);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return windowed(segments.fetch(keyFrom, keyTo, timeFrom, timeTo, true));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo, long timeFrom,
                                                                   long timeTo) {
        return windowed(segments.fetch(keyFrom, keyTo, timeFrom, timeTo, false));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return windowed(segments.fetchAll(timeFrom, timeTo, true));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return windowed(segments.fetchAll(timeFrom, timeTo, false));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return windowed(segments.all(true));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return windowed(segments.all(false));
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> windowed(KeyValueIterator<Bytes, byte[]> raw) {
        return new MappedIterator<>(raw, key -> WindowKeySchema.fromStoreBytesKey(key.get(), windowSize));
    }

    private static long windowStart(Bytes storeKey) {
        byte[] key = storeKey.get();
        return ByteBuffer.wrap(key, key.length - SUFFIX, Long.BYTES).getLong();
    }
}
