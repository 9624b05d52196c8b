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
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reference counting, and what happens when it is gotten wrong: exceptions, never a JVM crash. */
@Timeout(60)
class MemtableLifetimeTest {

    private static final long CAPACITY = 64 * 1024;
    private static final long PUT_1 = InternalKey.trailer(1, ValueKind.PUT);

    private static Memtable memtableWithOneEntry() {
        Memtable m = new Memtable(CAPACITY);
        assertTrue(m.add(segment(bytes(1, 2)), PUT_1, segment(bytes(3, 4, 5))));
        return m;
    }

    @Test
    void releasingTheOnlyReferenceFreesTheMemtableForGood() {
        Memtable m = memtableWithOneEntry();
        assertFalse(m.isFreed());
        m.release();
        assertTrue(m.isFreed());
        assertThrows(IllegalStateException.class, m::retain, "a freed memtable is never resurrected");
        assertTrue(m.isFreed());
        assertThrows(IllegalStateException.class, m::release, "over-release is reported");
        assertThrows(IllegalStateException.class, () -> m.add(segment(bytes(9)), PUT_1, segment(bytes())));
        assertThrows(IllegalStateException.class, () -> m.get(segment(bytes(1, 2)), 1, new LookupResult()));
        assertThrows(IllegalStateException.class, m::iterator);
        assertEquals(1, m.entryCount(), "statistics stay readable");
    }

    @Test
    void memoryLivesUntilTheLastReferenceIsReleased() {
        Memtable m = memtableWithOneEntry();
        m.retain();
        m.retain();
        m.release();
        m.release();
        assertFalse(m.isFreed());
        LookupResult result = new LookupResult();
        assertTrue(m.get(segment(bytes(1, 2)), 1, result));
        assertArrayEquals(bytes(3, 4, 5), Entries.toArray(result.value()));
        m.release();
        assertTrue(m.isFreed());
    }

    @Test
    void anOpenIteratorKeepsTheMemtableAliveAfterItsOwnerLetsGo() {
        Memtable m = memtableWithOneEntry();
        InternalIterator it = m.iterator();
        m.release();
        assertFalse(m.isFreed(), "the iterator still holds a reference");
        it.seekToFirst();
        assertArrayEquals(bytes(3, 4, 5), Entries.toArray(it.value()));
        it.close();
        assertTrue(m.isFreed());
        it.close(); // idempotent: must not release a second time
        assertThrows(IllegalStateException.class, it::seekToFirst, "closed iterator");
    }

    @Test
    void slicesUsedAfterFreeThrowInsteadOfCrashing() {
        Memtable m = memtableWithOneEntry();
        LookupResult result = new LookupResult();
        assertTrue(m.get(segment(bytes(1, 2)), 1, result));
        MemorySegment value = result.value();
        MemorySegment key;
        try (InternalIterator it = m.iterator()) {
            it.seekToFirst();
            key = it.userKey();
        }
        m.release();
        assertThrows(IllegalStateException.class, () -> value.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, () -> key.toArray(ValueLayout.JAVA_BYTE));
        assertThrows(IllegalStateException.class, () -> result.value().get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void anIteratorWhoseReferenceWasStolenThrowsInsteadOfCrashing() {
        Memtable m = memtableWithOneEntry();
        InternalIterator it = m.iterator();
        it.seekToFirst();
        m.release();
        m.release(); // a bug: drops the iterator's reference, freeing the memory under it
        assertTrue(m.isFreed());
        assertThrows(IllegalStateException.class, it::userKey);
        assertThrows(IllegalStateException.class, it::seekToLast);
        assertThrows(IllegalStateException.class, it::close, "its release finds no reference left");
    }

    @Test
    void freeingWhileAnotherThreadIsReadingMakesThatReaderThrow() throws Exception {
        Memtable m = memtableWithOneEntry();
        MemorySegment value;
        try (InternalIterator it = m.iterator()) {
            it.seekToFirst();
            value = it.value();
        }
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch reading = new CountDownLatch(1);
            // The reader (wrongly) holds no reference and spins on the memory while the owner frees it.
            Future<Long> reader = pool.submit(() -> {
                long reads = 0;
                try {
                    while (true) {
                        assertEquals(3, value.get(ValueLayout.JAVA_BYTE, 0));
                        reads++;
                        reading.countDown();
                    }
                } catch (IllegalStateException expected) {
                    return reads;
                }
            });
            assertTrue(reading.await(10, TimeUnit.SECONDS));
            m.release();
            assertTrue(reader.get(10, TimeUnit.SECONDS) > 0, "the reader got an exception, not a segfault");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentRetainAndReleaseKeepAnExactCount() throws Exception {
        Memtable m = memtableWithOneEntry();
        int threads = 4;
        int perThread = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            Future<?>[] futures = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                futures[t] = pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        m.retain();
                        m.release();
                    }
                    return null;
                });
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertFalse(m.isFreed(), "the owner's reference was never dropped");
        m.release();
        assertTrue(m.isFreed());
    }
}
