package io.varve.server.store;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Maps SCAN/HSCAN cursors (numbers, as clients expect) to the position where the next call resumes (the last
 * key or field returned). Redis can encode its position in a number because it walks a hash table; an
 * ordered keyspace's position is a key, so the server remembers it here, in a fixed ring of slots.
 *
 * <p>A cursor that is unknown (never issued, or its slot reused after {@value #SLOTS} newer cursors) restarts
 * the iteration from the beginning: every key present for the whole scan is still returned at least once,
 * which is SCAN's guarantee, but a scan that loses its slot may return keys twice. A cursor also records
 * which scan (SCAN, or HSCAN of which key) issued it; it does not resume a different one.
 */
public final class ScanCursors {

    static final int SLOTS = 1 << 14;

    private record Entry(long cursor, byte[] owner, byte[] position) {
    }

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicLong counter = new AtomicLong(System.nanoTime() & 0x0FFF_FFFFL);

    /** Remembers {@code position} for the scan identified by {@code owner}; returns the cursor to hand out. */
    public long save(byte[] owner, byte[] position) {
        long cursor;
        do {
            cursor = counter.incrementAndGet() & Long.MAX_VALUE;
        } while (cursor == 0);
        slots.set((int) (cursor & (SLOTS - 1)), new Entry(cursor, owner, position));
        return cursor;
    }

    /** Where {@code cursor} resumes, or null to start from the beginning. */
    public byte[] resume(byte[] owner, long cursor) {
        if (cursor == 0) {
            return null;
        }
        Entry e = slots.get((int) (cursor & (SLOTS - 1)));
        if (e == null || e.cursor != cursor || !Arrays.equals(e.owner, owner)) {
            return null;
        }
        return e.position;
    }
}
