package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.base.fs.MemFileSystem;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Reference counting: the mapping lives exactly as long as some holder keeps a reference. */
class TableReaderLifetimeTest {

    private static final Path PATH = DIR.resolve("000003.sst");
    private static final List<Entry> ENTRIES = sampleEntries(200, 50, false, 5);

    private static MemFileSystem table(boolean compression) throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, ENTRIES, TableOptions.defaults().withBlockSize(512).withCompression(compression));
        return fs;
    }

    @Test
    void releasingTheLastReferenceUnmapsAndClosesTheFile() throws Exception {
        MemFileSystem fs = table(false);
        TrackingReadableFile file = new TrackingReadableFile(fs.openReadable(PATH));
        TableReader reader = TableReader.open(file, PATH, 1, null);
        assertEquals(1, reader.referenceCount());

        MemorySegment value = reader.get(segment(ENTRIES.get(10).userKey()), InternalKey.MAX_SEQUENCE).value();
        assertTrue(value.scope().isAlive());
        reader.retain();
        assertEquals(2, reader.referenceCount());
        reader.release();
        assertTrue(value.scope().isAlive(), "one reference left: still mapped");
        assertFalse(file.closed);

        reader.release();
        assertEquals(0, reader.referenceCount());
        assertFalse(value.scope().isAlive(), "the mapping is gone");
        assertTrue(file.closed);
        // A stale slice fails cleanly instead of reading unmapped memory.
        assertThrows(IllegalStateException.class, () -> value.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, reader::retain);
        assertThrows(IllegalStateException.class, reader::release);
        assertThrows(IllegalStateException.class, reader::newIterator);
        assertThrows(IllegalStateException.class, () -> reader.get(segment("key"), 1));
    }

    @Test
    void anIteratorKeepsTheReaderAliveAfterItsOwnerReleases() throws Exception {
        MemFileSystem fs = table(true);
        TrackingReadableFile file = new TrackingReadableFile(fs.openReadable(PATH));
        TableReader reader = TableReader.open(file, PATH, 1, new BlockCache(1 << 20, 2));
        InternalIterator it = reader.newIterator();
        assertEquals(2, reader.referenceCount());
        reader.release();
        assertEquals(1, reader.referenceCount());
        assertFalse(file.closed);

        assertEquals(ENTRIES, scanForward(it));
        it.close();
        assertEquals(0, reader.referenceCount());
        assertTrue(file.closed);
        it.close(); // idempotent: must not release twice
        assertFalse(it.valid());
        assertThrows(IllegalStateException.class, it::seekToFirst);
    }

    @Test
    void aReferenceTakenOnAnotherThreadOutlivesTheOwner() throws Exception {
        MemFileSystem fs = table(false);
        TableReader reader = open(fs, PATH, 1, null);
        CountDownLatch retained = new CountDownLatch(1);
        CountDownLatch ownerReleased = new CountDownLatch(1);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread user = new Thread(() -> {
            try {
                reader.retain();
                retained.countDown();
                ownerReleased.await();
                List<byte[]> values = new ArrayList<>();
                for (Entry e : ENTRIES) {
                    values.add(array(reader.get(segment(e.userKey()), InternalKey.MAX_SEQUENCE).value()));
                }
                reader.release();
                outcome.set(values);
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        user.start();
        retained.await();
        reader.release();
        assertEquals(1, reader.referenceCount(), "the user thread's reference keeps it open");
        ownerReleased.countDown();
        user.join();
        assertInstanceOf(List.class, outcome.get(), () -> String.valueOf(outcome.get()));
        @SuppressWarnings("unchecked")
        List<byte[]> values = (List<byte[]>) outcome.get();
        for (int i = 0; i < ENTRIES.size(); i++) {
            assertArrayEquals(ENTRIES.get(i).value(), values.get(i));
        }
        assertEquals(0, reader.referenceCount());
    }

    @Test
    void concurrentRetainsAndReleasesKeepAnExactCount() throws Exception {
        MemFileSystem fs = table(true);
        TableReader reader = open(fs, PATH, 1, new BlockCache(1 << 20, 4));
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            int seed = t;
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    java.util.Random random = new java.util.Random(seed);
                    for (int i = 0; i < 2000; i++) {
                        reader.retain();
                        try {
                            Entry e = ENTRIES.get(random.nextInt(ENTRIES.size()));
                            assertArrayEquals(e.value(),
                                    array(reader.get(segment(e.userKey()), InternalKey.MAX_SEQUENCE).value()));
                        } finally {
                            reader.release();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        assertEquals(List.of(), failures);
        assertEquals(1, reader.referenceCount());
        reader.release();
        assertEquals(0, reader.referenceCount());
    }

    @Test
    void aFailedOpenClosesTheFile() throws Exception {
        MemFileSystem fs = memFs();
        overwrite(fs, PATH, new byte[100]);
        TrackingReadableFile file = new TrackingReadableFile(fs.openReadable(PATH));
        assertThrows(io.varve.base.CorruptionException.class, () -> TableReader.open(file, PATH, 1, null));
        assertTrue(file.closed);
    }

    @Test
    void iteratorMisuseIsReported() throws Exception {
        MemFileSystem fs = table(false);
        TableReader reader = open(fs, PATH, 1, null);
        try (InternalIterator it = reader.newIterator()) {
            assertFalse(it.valid(), "a new iterator is unpositioned");
            assertThrows(IllegalStateException.class, it::next);
            assertThrows(IllegalStateException.class, it::userKey);
            it.seekToLast();
            it.next();
            assertFalse(it.valid());
            assertThrows(IllegalStateException.class, it::prev);
        } finally {
            reader.release();
        }
    }
}
