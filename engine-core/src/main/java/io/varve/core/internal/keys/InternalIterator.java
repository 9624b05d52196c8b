package io.varve.core.internal.keys;

import java.lang.foreign.MemorySegment;

/**
 * A cursor over internal entries (user key, trailer, value) in internal-key order (see {@link InternalKey}).
 * Memtables, tables and merging iterators all speak this interface, so the read path composes them freely.
 *
 * <p>The segments returned by {@link #userKey()} and {@link #value()} are views into the source's memory and
 * stay valid only until the iterator moves or closes, and only while the source is pinned by the caller.
 * Damage found while iterating is thrown as {@link java.io.UncheckedIOException} wrapping a
 * {@link CorruptionException}. Not safe for concurrent use.
 */
public interface InternalIterator extends AutoCloseable {

    boolean valid();

    void seekToFirst();

    void seekToLast();

    /** Positions at the first entry at or after {@code (userKey, trailer)}. */
    void seek(MemorySegment userKey, long trailer);

    /** Positions at the last entry at or before {@code (userKey, trailer)}. */
    void seekForPrev(MemorySegment userKey, long trailer);

    void next();

    void prev();

    MemorySegment userKey();

    long trailer();

    MemorySegment value();

    /**
     * Copies the current user key into {@code dest}, as much as fits, and returns its length: what
     * {@link #userKey()} shows, without making a view (an object) for it.
     */
    default int copyUserKey(byte[] dest) {
        MemorySegment key = userKey();
        return Keys.copyInto(key, 0, (int) key.byteSize(), dest);
    }

    /** Copies the current value into {@code dest} as {@link #copyUserKey} copies the key. */
    default int copyValue(byte[] dest) {
        MemorySegment value = value();
        return Keys.copyInto(value, 0, (int) value.byteSize(), dest);
    }

    @Override
    void close();
}
