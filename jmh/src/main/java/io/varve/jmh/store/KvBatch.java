package io.varve.jmh.store;

/** A write batch bound to the store that made it; reusable after {@link #clear()}. Not thread-safe. */
public interface KvBatch extends AutoCloseable {

    void put(byte[] key, byte[] value);

    void delete(byte[] key);

    int count();

    void clear();

    @Override
    void close();
}
