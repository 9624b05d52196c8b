package io.varve.core;

import java.lang.foreign.MemorySegment;

/**
 * A cursor over the live keys of a database, in unsigned-byte key order, at one snapshot: it sees a fixed
 * state even while writes continue. Deleted keys are hidden; bounds from {@link ReadOptions} apply.
 * Close it: an open iterator pins memory. Not thread-safe. After the database is closed, every method but
 * {@link #close()} throws {@link IllegalStateException}.
 */
public interface DbIterator extends AutoCloseable {

    void seekToFirst();

    void seekToLast();

    /** Positions at the first key at or after {@code key}. */
    void seek(byte[] key);

    /** Positions at the last key at or before {@code key}. */
    void seekForPrev(byte[] key);

    boolean valid();

    void next();

    void prev();

    /** A copy of the current key. */
    byte[] key();

    /** A copy of the current value. */
    byte[] value();

    /** The current key without copying; valid until the iterator moves or closes. */
    MemorySegment keySegment();

    /** The current value without copying; valid until the iterator moves or closes. */
    MemorySegment valueSegment();

    /**
     * Copies the current key into {@code dest} and returns the key's length. A key longer than {@code dest}
     * fills it with its first bytes; the length returned tells how large a buffer it needs. Allocates
     * nothing, so a scan can reuse one buffer for every key (RocksDB's {@code RocksIterator.key(byte[])}).
     */
    int key(byte[] dest);

    /** Copies the current value into {@code dest} as {@link #key(byte[])} copies the key. */
    int value(byte[] dest);

    @Override
    void close();
}
