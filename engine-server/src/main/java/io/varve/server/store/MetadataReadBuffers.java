package io.varve.server.store;

import java.lang.foreign.MemorySegment;

/**
 * Arrays reused to read one metadata record from memory: the encoded key and the record, with the segments
 * over them made once. {@link Keyspace#lookupInMemory} runs for every pipelined GET an event loop answers,
 * and fresh arrays and segments there were most of what such a GET allocated.
 *
 * <p>One per platform thread: event loops are few and live as long as the server, and a lookup never
 * starts another on the same thread, so the arrays are free again when it returns (the record is decoded
 * into its own arrays before that). Virtual threads get none ({@link #forCurrentThread} returns null) and
 * allocate per call, since they are many and short-lived and a thread-local would be allocated per thread.
 */
final class MetadataReadBuffers {

    /** Covers the keys and small string values of most requests; larger ones fall back to exact arrays. */
    static final int CAPACITY = 256;

    private static final ThreadLocal<MetadataReadBuffers> PER_THREAD = ThreadLocal.withInitial(MetadataReadBuffers::new);

    final byte[] key = new byte[CAPACITY];
    final MemorySegment keySegment = MemorySegment.ofArray(key);
    final byte[] record = new byte[CAPACITY];
    final MemorySegment recordSegment = MemorySegment.ofArray(record);

    private MetadataReadBuffers() {
    }

    /** This platform thread's buffers, or null on a virtual thread. */
    static MetadataReadBuffers forCurrentThread() {
        return Thread.currentThread().isVirtual() ? null : PER_THREAD.get();
    }
}
