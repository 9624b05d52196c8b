package io.varve.core.internal.memtable;

import io.varve.base.LeakDetector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fixed-size off-heap segment handed out front to back by a lock-free bump pointer.
 *
 * <p>Memory is never returned piece by piece: a memtable only grows until it is flushed, after which the whole
 * segment is dropped at once by {@link #close()}. That is what makes allocation a single CAS, and what makes
 * int offsets stable node addresses that stay valid as long as the segment does.
 *
 * <p>The segment comes from a shared arena because writer and reader threads all touch it, and any thread may
 * drop the last reference and so close it. Its pages are zeroed as they are first written, not up front
 * ({@link ZeroedPages}).
 */
final class MemtableArena {

    /** Returned by {@link #allocate} when the rest of the segment is too small. */
    static final int NO_ROOM = -1;

    private final Arena arena;
    private final LeakDetector.Handle leak;
    private final MemorySegment memory;
    private final long capacity;
    /** The first free byte. Starts past offset 0 so that no allocation ever returns the NIL link. */
    private final AtomicLong end = new AtomicLong(SkiplistNodeLayout.NODE_ALIGNMENT);

    MemtableArena(long capacity, Object owner) {
        this.capacity = capacity;
        this.arena = Arena.ofShared();
        try {
            this.memory = ZeroedPages.allocate(arena, capacity, SkiplistNodeLayout.NODE_ALIGNMENT);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
        this.leak = LeakDetector.track("arena", owner);
    }

    MemorySegment memory() {
        return memory;
    }

    long capacity() {
        return capacity;
    }

    /** Bytes handed out so far, including the reserved first word and node padding. */
    long allocatedBytes() {
        return end.get();
    }

    /**
     * Reserves {@code size} bytes (a multiple of the node alignment) and returns their offset, or
     * {@link #NO_ROOM}. A CAS loop rather than {@code getAndAdd}, so a failed request leaves the pointer
     * where it was and a smaller later request can still fit.
     */
    int allocate(long size) {
        while (true) {
            long start = end.get();
            long newEnd = start + size;
            if (newEnd > capacity) {
                return NO_ROOM;
            }
            if (end.compareAndSet(start, newEnd)) {
                return (int) start;
            }
        }
    }

    /**
     * A zero-filled segment beside the node area, owned and freed with it, that does not count towards
     * {@link #allocatedBytes()}: the memtable's point index lives here.
     */
    MemorySegment allocateSide(long bytes) {
        return ZeroedPages.allocate(arena, bytes, Long.BYTES);
    }

    /** Frees the segment. Threads still touching it afterwards get {@link IllegalStateException}. */
    void close() {
        arena.close();
        leak.close();
    }
}
