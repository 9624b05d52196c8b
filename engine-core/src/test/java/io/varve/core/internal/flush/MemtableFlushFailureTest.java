package io.varve.core.internal.flush;

import io.varve.base.LeakDetector;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.FaultInjectingFileSystem.InjectedIOException;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.sst.TableOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A flush whose block-encoding thread meets an I/O error: the error reaches the flush's caller as it was
 * raised, the partial table is deleted, the encoding thread has ended and the memtable holds no reference
 * the flush took. The memtable holds enough for dozens of 256 KiB writes, so the failing ones happen while
 * the caller is still walking the memtable, on the encoding thread.
 */
class MemtableFlushFailureTest {

    private static final TableOptions OPTIONS = TableOptions.defaults().forLevel(0);

    /** Records which thread made each write, then passes it on. */
    private static final class ThreadRecordingFile extends ForwardingWritableFile {
        final List<String> writers = new CopyOnWriteArrayList<>();

        ThreadRecordingFile(WritableFile delegate) {
            super(delegate);
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            writers.add(Thread.currentThread().getName());
            delegate.write(source);
        }
    }

    private static Memtable filledMemtable() {
        Memtable memtable = new Memtable(16L << 20);
        byte[] value = new byte[200];
        Random random = new Random(7);
        for (int i = 0; i < 40_000; i++) {
            // Half random: blocks compress to about half, so the table takes about 20 writes.
            random.nextBytes(value);
            Arrays.fill(value, 100, 200, (byte) 'v');
            byte[] key = String.format("key-%08d", i).getBytes(StandardCharsets.US_ASCII);
            assertTrue(memtable.add(MemorySegment.ofArray(key), InternalKey.trailer(i + 1L, ValueKind.PUT),
                    MemorySegment.ofArray(value)));
        }
        return memtable;
    }

    private static boolean encoderThreadAlive(Path dir) {
        String name = "varve-table-encoder " + dir;
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    private static FaultInjectingFileSystem fileSystem(Path dir) throws IOException {
        MemFileSystem mem = new MemFileSystem();
        mem.createDirectories(dir);
        return new FaultInjectingFileSystem(mem);
    }

    @Test
    void writeErrorOnTheEncodingThreadReachesTheCaller() throws Exception {
        Path dir = Path.of("/flush-write-error");
        FaultInjectingFileSystem fs = fileSystem(dir);
        Path path = dir.resolve("000009.sst");
        Memtable memtable = filledMemtable();
        ThreadRecordingFile[] file = new ThreadRecordingFile[1];
        fs.failAt(4, false); // the create, two writes, then the third write fails
        InjectedIOException thrown = assertThrows(InjectedIOException.class,
                () -> MemtableFlush.write(fs, path, 9, memtable, OPTIONS, f -> file[0] = new ThreadRecordingFile(f)));

        assertEquals("write", thrown.operationName());
        assertEquals(List.of("write"), fs.injectedFailures());
        assertEquals(3, file[0].writers.size(), "no write after the failed one: " + file[0].writers);
        String encoder = "varve-table-encoder " + dir;
        assertEquals(List.of(encoder, encoder, encoder), file[0].writers, "data blocks are written by the encoder");
        assertFalse(fs.exists(path), "the partial table is deleted");
        assertFalse(encoderThreadAlive(dir), "the encoding thread has ended");
        assertTrue(LeakDetector.openOwnedBy(dir.toString()).isEmpty(), LeakDetector.describe(
                LeakDetector.openOwnedBy(dir.toString())));
        memtable.release();
        assertTrue(memtable.isFreed(), "the flush's iterator released its reference to the arena");
    }

    @Test
    void everyWriteFailingStillEndsTheFlush() throws Exception {
        Path dir = Path.of("/flush-every-write-fails");
        FaultInjectingFileSystem fs = fileSystem(dir);
        Path path = dir.resolve("000010.sst");
        Memtable memtable = filledMemtable();
        fs.failAt(2, true); // every operation after the create, the delete of the partial table too
        InjectedIOException thrown = assertThrows(InjectedIOException.class,
                () -> MemtableFlush.write(fs, path, 10, memtable, OPTIONS));

        assertEquals("write", thrown.operationName());
        assertEquals(1, thrown.getSuppressed().length, "the failed delete rides along");
        assertFalse(encoderThreadAlive(dir));
        memtable.release();
        assertTrue(memtable.isFreed());
    }

    @Test
    void errorInTheFinalWritesOnTheCallerSideIsReportedToo() throws Exception {
        Path dir = Path.of("/flush-sync-error");
        FaultInjectingFileSystem fs = fileSystem(dir);
        Path path = dir.resolve("000011.sst");
        Memtable memtable = filledMemtable();
        // Count the operations of a good flush, then fail the last one (the sync) of a second.
        TableMeta good = MemtableFlush.write(fs, dir.resolve("000001.sst"), 1, memtable, OPTIONS);
        assertNotNull(good);
        long before = fs.operationCount();
        MemtableFlush.write(fs, dir.resolve("000002.sst"), 2, memtable, OPTIONS);
        long operations = fs.operationCount() - before;
        fs.failAt(operations, false);
        InjectedIOException thrown = assertThrows(InjectedIOException.class,
                () -> MemtableFlush.write(fs, path, 11, memtable, OPTIONS));

        assertEquals("sync", thrown.operationName());
        assertFalse(fs.exists(path));
        assertFalse(encoderThreadAlive(dir));
        memtable.release();
        assertTrue(memtable.isFreed());
    }

    @Test
    void plainAndPipelinedFlushesWriteTheSameEntries() throws Exception {
        Path dir = Path.of("/flush-same-entries");
        FaultInjectingFileSystem fs = fileSystem(dir);
        Memtable memtable = filledMemtable();
        TableMeta pipelined = MemtableFlush.write(fs, dir.resolve("000001.sst"), 1, memtable, OPTIONS, f -> f, true);
        TableMeta plain = MemtableFlush.write(fs, dir.resolve("000002.sst"), 2, memtable, OPTIONS, f -> f, false);
        assertEquals(plain.fileSize(), pipelined.fileSize());
        assertArrayEquals(plain.smallestKey(), pipelined.smallestKey());
        assertArrayEquals(plain.largestKey(), pipelined.largestKey());
        assertFalse(encoderThreadAlive(dir));
        memtable.release();
        assertTrue(memtable.isFreed());
    }
}
