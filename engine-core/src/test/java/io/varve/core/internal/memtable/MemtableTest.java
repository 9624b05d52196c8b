package io.varve.core.internal.memtable;

import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.memtable.Entries.bytes;
import static io.varve.core.internal.memtable.Entries.segment;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Entries.Entry;
import io.varve.core.internal.memtable.Entries.Key;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class MemtableTest {

    private static final long CAPACITY = 64 * 1024;
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private final List<Memtable> created = new ArrayList<>();

    @AfterEach
    void freeAll() {
        for (Memtable m : created) {
            if (!m.isFreed()) {
                m.release();
            }
        }
    }

    private Memtable memtable(long capacity) {
        Memtable m = new Memtable(capacity);
        created.add(m);
        return m;
    }

    private static long put(long sequence) {
        return InternalKey.trailer(sequence, ValueKind.PUT);
    }

    private static long delete(long sequence) {
        return InternalKey.trailer(sequence, ValueKind.DELETE);
    }

    @Test
    void capacityMustBeAtLeast64KiBAndBelow2GiB() {
        assertThrows(IllegalArgumentException.class, () -> new Memtable(64 * 1024 - 1));
        assertThrows(IllegalArgumentException.class, () -> new Memtable(1L << 31));
        Memtable smallest = memtable(64 * 1024);
        assertEquals(64 * 1024, smallest.capacity());
        assertTrue(smallest.isEmpty());
    }

    @Test
    void emptyMemtableHasNoEntries() {
        Memtable m = memtable(CAPACITY);
        assertEquals(0, m.entryCount());
        assertTrue(m.approximateMemoryUsage() > 0, "the head node is accounted for");
        try (InternalIterator it = m.iterator()) {
            assertFalse(it.valid());
            it.seekToFirst();
            assertFalse(it.valid());
            it.seekToLast();
            assertFalse(it.valid());
            it.seek(segment(bytes(1)), put(1));
            assertFalse(it.valid());
            it.seekForPrev(segment(bytes(1)), put(1));
            assertFalse(it.valid());
            assertThrows(NoSuchElementException.class, it::userKey);
        }
        LookupResult result = new LookupResult();
        assertFalse(m.get(segment(bytes(1)), 5, result));
        assertEquals(LookupResult.Status.NOT_FOUND, result.status());
    }

    @Test
    void userKeysCompareAsUnsignedBytesShorterPrefixFirst() {
        Memtable m = memtable(CAPACITY);
        byte[][] sorted = {
            bytes(), bytes(0x00), bytes(0x00, 0x00), bytes(0x00, 0xFF), bytes(0x01), bytes(0x7F),
            bytes(0x80), bytes(0xFE, 0xFF, 0xFF), bytes(0xFF), bytes(0xFF, 0x00), bytes(0xFF, 0xFF),
        };
        // Insert in an order unrelated to the sort order.
        int[] order = {6, 0, 10, 3, 8, 1, 9, 5, 2, 7, 4};
        for (int i : order) {
            assertTrue(m.add(segment(sorted[i]), put(i + 1), segment(bytes(i))));
        }
        try (InternalIterator it = m.iterator()) {
            List<Entry> seen = Entries.forward(it);
            assertEquals(sorted.length, seen.size());
            for (int i = 0; i < sorted.length; i++) {
                assertArrayEquals(sorted[i], seen.get(i).key().userKey(), "position " + i);
            }
        }
    }

    @Test
    void newestEntryOfAUserKeyComesFirstAndGetHonoursTheSnapshot() {
        Memtable m = memtable(CAPACITY);
        byte[] key = bytes(0x80, 0x01);
        m.add(segment(key), put(10), segment(bytes(10)));
        m.add(segment(key), delete(20), EMPTY);
        m.add(segment(key), put(30), segment(bytes(30)));
        m.add(segment(bytes(0x80)), put(40), segment(bytes(40)));
        m.add(segment(bytes(0x80, 0x01, 0x00)), put(5), segment(bytes(5)));

        try (InternalIterator it = m.iterator()) {
            List<Long> trailers = new ArrayList<>();
            for (it.seek(segment(key), InternalKey.seekTrailer(InternalKey.MAX_SEQUENCE)); it.valid(); it.next()) {
                trailers.add(it.trailer());
            }
            assertEquals(List.of(put(30), delete(20), put(10), put(5)), trailers);
        }

        LookupResult result = new LookupResult();
        assertFalse(m.get(segment(key), 9, result), "nothing visible before sequence 10");
        assertEquals(LookupResult.Status.NOT_FOUND, result.status());

        assertTrue(m.get(segment(key), 10, result));
        assertEquals(LookupResult.Status.FOUND, result.status());
        assertArrayEquals(bytes(10), Entries.toArray(result.value()));
        assertTrue(m.get(segment(key), 19, result));
        assertEquals(put(10), result.trailer());

        assertTrue(m.get(segment(key), 20, result));
        assertEquals(LookupResult.Status.DELETED, result.status());
        assertThrows(IllegalStateException.class, result::value);
        assertTrue(m.get(segment(key), 29, result));
        assertEquals(LookupResult.Status.DELETED, result.status());

        assertTrue(m.get(segment(key), InternalKey.MAX_SEQUENCE, result));
        assertEquals(LookupResult.Status.FOUND, result.status());
        assertArrayEquals(bytes(30), Entries.toArray(result.value()));

        assertFalse(m.get(segment(bytes(0x80, 0x00)), InternalKey.MAX_SEQUENCE, result), "absent key");
        assertFalse(m.get(segment(bytes(0x80, 0x01, 0x00, 0x00)), InternalKey.MAX_SEQUENCE, result));
    }

    @Test
    void iteratorReturnsZeroCopyViewsOfTheArena() {
        Memtable m = memtable(CAPACITY);
        m.add(segment(bytes(1, 2, 3)), put(1), segment(bytes(9, 8)));
        try (InternalIterator it = m.iterator()) {
            it.seekToFirst();
            MemorySegment key = it.userKey();
            MemorySegment value = it.value();
            assertTrue(key.isNative() && value.isNative(), "views of the off-heap segment, not copies");
            assertEquals(key.address() + 3, value.address(), "value bytes follow the key bytes in the node");
            assertArrayEquals(bytes(9, 8), Entries.toArray(value));
        }
    }

    @Test
    void duplicateInternalKeyIsRejectedAndLeavesTheMemtableUnchanged() {
        Memtable m = memtable(CAPACITY);
        assertTrue(m.add(segment(bytes(7)), put(3), segment(bytes(1))));
        assertThrows(IllegalStateException.class, () -> m.add(segment(bytes(7)), put(3), segment(bytes(2))));
        assertTrue(m.add(segment(bytes(7)), delete(3), EMPTY), "same sequence, other kind: distinct trailer");
        assertEquals(2, m.entryCount());
        try (InternalIterator it = m.iterator()) {
            assertEquals(List.of(new Entry(new Key(bytes(7), put(3)), bytes(1)),
                    new Entry(new Key(bytes(7), delete(3)), bytes())), Entries.forward(it));
        }
    }

    @Test
    void unknownKindIsRejected() {
        Memtable m = memtable(CAPACITY);
        assertThrows(IllegalArgumentException.class, () -> m.add(segment(bytes(1)), (5L << 8) | 0x7, EMPTY));
        assertTrue(m.isEmpty());
    }

    @Test
    void entryTooBigForAnyMemtableOfThisCapacityIsRejectedButTheLargestPossibleOneFits() {
        Memtable m = memtable(CAPACITY);
        long free = m.capacity() - m.approximateMemoryUsage();
        long tallestHeader = SkiplistNodeLayout.TOWER_OFFSET
                + (long) SkiplistNodeLayout.LINK_SIZE * SkiplistNodeLayout.MAX_HEIGHT;
        int largestPayload = (int) (free - tallestHeader);
        byte[] key = bytes(1);
        assertThrows(IllegalArgumentException.class,
                () -> m.add(segment(key), put(1), segment(new byte[largestPayload])));
        assertTrue(m.isEmpty());
        assertEquals(free, m.capacity() - m.approximateMemoryUsage(), "a rejected entry allocates nothing");
        byte[] value = new byte[largestPayload - key.length];
        value[value.length - 1] = 42;
        assertTrue(m.add(segment(key), put(1), segment(value)), "fits whatever tower height is drawn");
        LookupResult result = new LookupResult();
        assertTrue(m.get(segment(key), 1, result));
        assertArrayEquals(value, Entries.toArray(result.value()));
    }

    @Test
    void fullArenaRefusesTheAddAndKeepsEverythingAddedBefore() {
        Memtable m = memtable(CAPACITY);
        List<Entry> accepted = new ArrayList<>();
        byte[] value = new byte[100];
        int i = 0;
        while (true) {
            byte[] key = ByteBuffer.allocate(4).putInt(i).array();
            value[0] = (byte) i;
            value[99] = (byte) ~i;
            long usedBefore = m.approximateMemoryUsage();
            if (!m.add(segment(key), put(i + 1), segment(value))) {
                assertEquals(usedBefore, m.approximateMemoryUsage(), "a refused add allocates nothing");
                break;
            }
            accepted.add(new Entry(new Key(key, put(i + 1)), value.clone()));
            i++;
        }
        assertTrue(accepted.size() > 400, "64 KiB holds several hundred 100-byte values");
        assertTrue(m.approximateMemoryUsage() <= m.capacity());
        assertEquals(accepted.size(), m.entryCount());

        // The refused key must not be visible, not even partially.
        byte[] refusedKey = ByteBuffer.allocate(4).putInt(i).array();
        LookupResult result = new LookupResult();
        assertFalse(m.get(segment(refusedKey), InternalKey.MAX_SEQUENCE, result));

        // A retry may fit where the first try did not (a node's size depends on its random tower height);
        // if it does, it is an ordinary entry. A small entry can still use the leftover space.
        if (m.add(segment(refusedKey), put(i + 1), segment(value))) {
            accepted.add(new Entry(new Key(refusedKey, put(i + 1)), value.clone()));
        }
        boolean smallFit = m.add(segment(bytes(0xFF)), put(1_000_000), EMPTY);
        if (smallFit) {
            accepted.add(new Entry(new Key(bytes(0xFF), put(1_000_000)), bytes()));
        }
        try (InternalIterator it = m.iterator()) {
            assertEquals(accepted, Entries.forward(it));
            assertEquals(accepted.reversed(), Entries.backward(it));
        }
    }

    @Test
    void iteratorMovesBothWaysAcrossUserKeyBoundaries() {
        Memtable m = memtable(CAPACITY);
        for (int k = 0; k < 50; k++) {
            for (int s = 1; s <= 3; s++) {
                m.add(segment(bytes(k)), put(k * 10L + s), segment(bytes(k, s)));
            }
        }
        try (InternalIterator it = m.iterator()) {
            it.seek(segment(bytes(20)), InternalKey.seekTrailer(202));
            assertEquals(new Key(bytes(20), put(202)), Entries.current(it).key(), "newest of key 20 at or below 202");
            it.next();
            assertEquals(new Key(bytes(20), put(201)), Entries.current(it).key());
            it.next();
            assertEquals(new Key(bytes(21), put(213)), Entries.current(it).key());
            it.prev();
            it.prev();
            assertEquals(new Key(bytes(20), put(202)), Entries.current(it).key());
            it.seekForPrev(segment(bytes(20)), put(500));
            assertEquals(new Key(bytes(19), put(191)), Entries.current(it).key());
            it.seekToFirst();
            it.prev();
            assertFalse(it.valid());
            it.seekToLast();
            it.next();
            assertFalse(it.valid());
            assertThrows(NoSuchElementException.class, it::next);
        }
    }
}
