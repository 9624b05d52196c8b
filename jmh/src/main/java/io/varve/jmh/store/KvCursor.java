package io.varve.jmh.store;

/**
 * A forward cursor. The accessors copy into a caller's buffer, which every engine supports without a
 * per-entry allocation except LevelDB-java (its iterator hands out fresh arrays). Not thread-safe.
 */
public interface KvCursor extends AutoCloseable {

    void seekToFirst();

    /** Positions at the first key at or after {@code key}. */
    void seek(byte[] key);

    boolean valid();

    void next();

    /** Copies the current key into {@code dest} (a prefix if too small) and returns its full length. */
    int key(byte[] dest);

    /** Copies the current value into {@code dest} (a prefix if too small) and returns its full length. */
    int value(byte[] dest);

    @Override
    void close();
}
