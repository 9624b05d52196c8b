package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.FaultInjectingFileSystem.InjectedIOException;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.wal.WalTestSupport.CapturingFile;
import io.varve.core.internal.wal.WalTestSupport.Outcome;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class WalWriterTest {

    private static final Path DIR = Path.of("/db");
    private static final Path LOG = DIR.resolve("000003.log");

    private final MemFileSystem mem = new MemFileSystem();
    private final FaultInjectingFileSystem faulty = new FaultInjectingFileSystem(mem);

    private WalWriter openWriter() throws IOException {
        mem.createDirectories(DIR);
        return new WalWriter(faulty.create(LOG), 3);
    }

    @Test
    void failedWritePoisonsTheWriter() throws IOException {
        WalWriter writer = openWriter();
        writer.append(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        faulty.failAt(1, false); // only the next operation fails: the disk works again afterwards

        InjectedIOException original = assertThrows(InjectedIOException.class, writer::flush);
        assertPoisoned(writer, original);
    }

    @Test
    void failedSyncPoisonsTheWriter() throws IOException {
        WalWriter writer = openWriter();
        writer.append(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        faulty.failAt(2, false); // the write goes through, the fsync fails

        InjectedIOException original = assertThrows(InjectedIOException.class, writer::sync);
        assertEquals(14, mem.size(LOG), "the write itself happened");
        assertPoisoned(writer, original);
    }

    @Test
    void appendAloneDoesNoIo() throws IOException {
        WalWriter writer = openWriter();
        faulty.failAt(1, true);
        writer.append(ByteBuffer.allocate(100_000));
        assertEquals(0, mem.size(LOG));
        assertThrows(InjectedIOException.class, writer::flush);
    }

    private void assertPoisoned(WalWriter writer, IOException original) throws IOException {
        long sizeBefore = mem.size(LOG);
        List<Executable> calls = List.of(
                () -> writer.append(ByteBuffer.wrap(new byte[] {4})),
                () -> writer.append(MemorySegment.ofArray(new byte[0])),
                writer::flush,
                writer::sync,
                writer::close,
                writer::close);
        for (Executable call : calls) {
            IOException e = assertThrows(IOException.class, call);
            assertSame(original, e.getCause(), "the earlier failure is the cause");
            assertTrue(e.getMessage().contains("failed earlier"), e.getMessage());
        }
        assertEquals(sizeBefore, mem.size(LOG), "nothing more reached the file");
    }

    @Test
    void flushWritesAGroupOfRecordsWithOneWriteCall() throws IOException {
        CapturingFile file = new CapturingFile();
        WalWriter writer = new WalWriter(file, 1);
        for (int i = 0; i < 50; i++) {
            writer.append(ByteBuffer.wrap(WalTestSupport.payload(i * 997, i)));
        }
        assertEquals(0, file.writes, "appends only buffer");
        writer.flush();
        assertEquals(1, file.writes);
        assertEquals(writer.size(), file.size());
        writer.flush();
        assertEquals(1, file.writes, "an empty flush does not call the file");
        writer.append(ByteBuffer.wrap(new byte[] {9}));
        writer.sync();
        assertEquals(2, file.writes);
        assertEquals(1, file.syncs);
        writer.close();
        assertTrue(file.closed);
        assertThrows(IOException.class, () -> writer.append(ByteBuffer.wrap(new byte[1])), "closed");
        writer.close(); // closing a healthy writer twice is harmless
    }

    @Test
    void theBufferReachesTheFileAsNativeMemory() throws IOException {
        CapturingFile file = new CapturingFile();
        try (WalWriter writer = new WalWriter(file, 1)) {
            writer.append(ByteBuffer.wrap(WalTestSupport.payload(100, 1)));
            writer.flush();
            writer.append(ByteBuffer.wrap(WalTestSupport.payload(3 << 20, 2))); // grows the buffer
            writer.flush();
            writer.append(ByteBuffer.wrap(WalTestSupport.payload(100, 3))); // back to a small one
        }
        assertEquals(3, file.writes);
        assertEquals(0, file.heapWrites, "a heap buffer costs a copy into native memory on every write");
    }

    @Test
    void closeFlushesButDoesNotSync() throws IOException {
        CapturingFile file = new CapturingFile();
        WalWriter writer = new WalWriter(file, 1);
        writer.append(ByteBuffer.wrap(new byte[] {1}));
        writer.close();
        assertEquals(12, file.size());
        assertEquals(0, file.syncs);
    }

    @Test
    void multiMegabytePayloadFromNativeMemoryRoundTrips() throws IOException {
        byte[] small = WalTestSupport.payload(10, 1);
        byte[] big = WalTestSupport.payload(5 << 20, 2);
        CapturingFile file = new CapturingFile();
        try (Arena arena = Arena.ofConfined(); WalWriter writer = new WalWriter(file, 77)) {
            MemorySegment segment = arena.allocate(big.length);
            MemorySegment.copy(big, 0, segment, ValueLayout.JAVA_BYTE, 0, big.length);
            writer.append(ByteBuffer.wrap(small));
            writer.append(segment);
            writer.append(ByteBuffer.wrap(small));
            writer.flush();
            // The big record made the buffer grow; a small group after it must still encode correctly.
            writer.append(ByteBuffer.wrap(small));
        }
        Outcome outcome = WalTestSupport.readAll(file.bytes(), 77);
        assertNull(outcome.error());
        WalTestSupport.assertPrefix(List.of(small, big, small, small), outcome.records(), 4);
    }

    /** A writer given a file that already holds a log continues its block layout. */
    @Test
    void writerContinuesALogOpenedForAppend() throws IOException {
        mem.createDirectories(DIR);
        List<byte[]> payloads = new ArrayList<>();
        long end;
        try (WalWriter writer = new WalWriter(mem.create(LOG), 3)) {
            payloads.add(WalTestSupport.payload(WalTestSupport.sizeLeaving(0, 4), 1));
            writer.append(ByteBuffer.wrap(payloads.get(0)));
            end = writer.size();
        }
        try (WalWriter writer = new WalWriter(mem.openForAppend(LOG), 3)) {
            assertEquals(end, writer.size());
            payloads.add(WalTestSupport.payload(50_000, 2));
            writer.append(ByteBuffer.wrap(payloads.get(1)));
        }
        Outcome outcome = WalTestSupport.readAll(mem.openReadable(LOG), 3);
        assertNull(outcome.error());
        WalTestSupport.assertPrefix(payloads, outcome.records(), 2);
    }

    @Test
    void readerStopsAtTheFirstProblemAndStaysStopped() throws IOException {
        CapturingFile file = new CapturingFile();
        try (WalWriter writer = new WalWriter(file, 5)) {
            writer.append(ByteBuffer.wrap(new byte[] {1}));
            writer.append(ByteBuffer.wrap(new byte[] {2}));
        }
        byte[] bytes = file.bytes();
        bytes[bytes.length - 1] ^= 1;
        try (WalReader reader = new WalReader(new WalTestSupport.BytesFile(bytes, bytes.length), Path.of("x"), 5)) {
            assertArrayEquals(new byte[] {1}, reader.next());
            IOException first = assertThrows(IOException.class, reader::next);
            assertInstanceOf(io.varve.base.CorruptionException.class, first);
            assertSame(first, assertThrows(IOException.class, reader::next));
            assertEquals(12, reader.offset());
            assertNull(reader.end());
        }
    }

    /** Writes fail; the file handle must still be released when the poisoned writer is closed. */
    @Test
    void closingAPoisonedWriterClosesTheFile() throws IOException {
        boolean[] closed = {false};
        WalWriter writer = new WalWriter(new WritableFile() {
            @Override
            public void write(ByteBuffer source) throws IOException {
                throw new IOException("disk full");
            }

            @Override
            public void sync() {
            }

            @Override
            public long size() {
                return 0;
            }

            @Override
            public void close() {
                closed[0] = true;
            }
        }, 1);
        writer.append(ByteBuffer.wrap(new byte[] {1}));
        assertThrows(IOException.class, writer::flush);
        assertThrows(IOException.class, writer::close);
        assertTrue(closed[0]);
    }
}
