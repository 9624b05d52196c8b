package io.varve.kafka.streams.store;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.internals.HasNextCondition;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Kafka's window or session store iterator over the segments of a {@link SegmentedStore}: one engine range scan
 * per segment, in time order (or reverse), with the segment prefix stripped so that Kafka's key schema sees its
 * own key layout; the schema's {@link HasNextCondition} skips entries outside the key and time range. Once the
 * store is closed it yields nothing more.
 */
final class SegmentIterator implements KeyValueIterator<Bytes, byte[]> {

    private final SegmentedStore store;
    private final Iterator<Long> segments;
    private final byte[] lower;
    private final byte[] upper;
    private final HasNextCondition condition;
    private final boolean forward;
    private KeyValueIterator<Bytes, byte[]> current;
    private boolean closed;

    /** Scans, in each of {@code segmentIds}, the schema keys in {@code [lower, upper]} (null: unbounded). */
    SegmentIterator(SegmentedStore store, List<Long> segmentIds, byte[] lower, byte[] upper,
                    HasNextCondition condition, boolean forward) {
        this.store = store;
        this.segments = segmentIds.iterator();
        this.lower = lower;
        this.upper = upper;
        this.condition = condition;
        this.forward = forward;
    }

    @Override
    public boolean hasNext() {
        if (closed || !store.database().isOpen()) {
            return false;
        }
        while (true) {
            if (current != null && condition.hasNext(current)) {
                return true;
            }
            if (current != null) {
                current.close();
                current = null;
            }
            if (!segments.hasNext()) {
                return false;
            }
            current = new PrefixStripping(store.scanSegment(segments.next(), lower, upper, forward));
        }
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.next();
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.peekNextKey();
    }

    @Override
    public void close() {
        closed = true;
        if (current != null) {
            current.close();
            current = null;
        }
    }

    /** A segment's entries with their 8-byte segment prefix removed from each key. */
    private static final class PrefixStripping implements KeyValueIterator<Bytes, byte[]> {
        private final KeyValueIterator<Bytes, byte[]> inner;

        PrefixStripping(KeyValueIterator<Bytes, byte[]> inner) {
            this.inner = inner;
        }

        @Override
        public boolean hasNext() {
            return inner.hasNext();
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            KeyValue<Bytes, byte[]> entry = inner.next();
            return KeyValue.pair(SegmentedStore.stripSegment(entry.key), entry.value);
        }

        @Override
        public Bytes peekNextKey() {
            return SegmentedStore.stripSegment(inner.peekNextKey());
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
