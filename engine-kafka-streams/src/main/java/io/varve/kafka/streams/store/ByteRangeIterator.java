package io.varve.kafka.streams.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.util.NoSuchElementException;

/**
 * Kafka's iterator over the raw entries of a store between two engine bounds, forward or backward. It sees the
 * store as it was when opened (the engine iterator's snapshot), so writes during the scan never disturb it.
 * Closing the store closes it; afterwards {@link #hasNext()} answers false. Methods are synchronized so that a
 * store closing on the task thread cannot close the engine iterator under a query thread's feet.
 */
public final class ByteRangeIterator implements KeyValueIterator<Bytes, byte[]> {

    private final StoreDatabase database;
    private final DbIterator iterator;
    private final boolean forward;
    private boolean closed;

    /** Iterates the keys in {@code [lower, upper)} (null: unbounded). */
    public ByteRangeIterator(StoreDatabase database, byte[] lower, byte[] upper, boolean forward) {
        this.database = database;
        this.forward = forward;
        this.iterator = database.db().iterator(ReadOptions.DEFAULT.withLowerBound(lower).withUpperBound(upper));
        database.track(this);
        if (forward) {
            iterator.seekToFirst();
        } else {
            iterator.seekToLast();
        }
    }

    /** An iterator that yields nothing and holds no engine resources. */
    public static KeyValueIterator<Bytes, byte[]> empty() {
        return new KeyValueIterator<>() {
            @Override
            public void close() {
            }

            @Override
            public Bytes peekNextKey() {
                throw new NoSuchElementException();
            }

            @Override
            public boolean hasNext() {
                return false;
            }

            @Override
            public KeyValue<Bytes, byte[]> next() {
                throw new NoSuchElementException();
            }
        };
    }

    @Override
    public synchronized boolean hasNext() {
        return !closed && iterator.valid();
    }

    @Override
    public synchronized KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<Bytes, byte[]> entry = KeyValue.pair(Bytes.wrap(iterator.key()), iterator.value());
        if (forward) {
            iterator.next();
        } else {
            iterator.prev();
        }
        return entry;
    }

    @Override
    public synchronized Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return Bytes.wrap(iterator.key());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        database.untrack(this);
        iterator.close();
    }
}
