package io.varve.core.internal.sst;

import java.lang.foreign.MemorySegment;

/**
 * One iterator's private buffer for decoded blocks (see {@link TableIterator}): each block decoded into it
 * replaces the one before, so it must never reach the block cache or any other thread. Grows to the largest
 * block it has held. Not thread-safe.
 */
final class BlockScratch {

    private byte[] bytes = new byte[0];
    private MemorySegment whole = MemorySegment.ofArray(bytes);

    /** The buffer, with room for at least {@code length} bytes; what it held before is gone. */
    byte[] bytes(int length) {
        if (bytes.length < length) {
            bytes = new byte[Math.max(length, bytes.length * 2)];
            whole = MemorySegment.ofArray(bytes);
        }
        return bytes;
    }

    /** The first {@code length} bytes of the buffer, read-only: what {@link #bytes} was filled with. */
    MemorySegment contents(int length) {
        return whole.asSlice(0, length).asReadOnly();
    }
}
