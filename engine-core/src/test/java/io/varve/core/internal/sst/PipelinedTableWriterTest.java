package io.varve.core.internal.sst;

import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.sst.TableOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/** The encoding thread of a pipelined table writer ends with the writer, however the writer ends. */
class PipelinedTableWriterTest {

    /** 256-byte blocks: a few thousand entries fill every batch of the pipeline many times over. */
    private static final TableOptions SMALL_BLOCKS = TableOptions.defaults().withBlockSize(256);

    /** Fails every write with the one exception it was made with, and remembers being closed. */
    private static final class FailingFile extends ForwardingWritableFile {
        final IOException failure = new IOException("disk gone");
        volatile boolean closed;

        FailingFile(WritableFile delegate) {
            super(delegate);
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            throw failure;
        }

        @Override
        public void close() throws IOException {
            closed = true;
            delegate.close();
        }
    }

    private static boolean encoderThreadAlive(String owner) {
        String name = "varve-table-encoder " + owner;
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    private static void add(TableWriter writer, Entry e) throws IOException {
        writer.add(segment(e.userKey()), e.trailer(), segment(e.value()));
    }

    @Test
    void encoderFailureReachesTheProducerWhichIsNeverLeftWaiting() throws Exception {
        String owner = "/pipelined-encoder-fails";
        FailingFile file = new FailingFile(memFs().create(DIR.resolve("000001.sst")));
        List<Entry> entries = sampleEntries(20_000, 60, false, 3);
        TableWriter writer = TableWriter.pipelined(file, SMALL_BLOCKS, owner);
        // The producer runs on past the failure until a hand-over reports it, with every batch given back.
        IOException thrown = assertThrows(IOException.class, () -> {
            for (Entry e : entries) {
                add(writer, e);
            }
            writer.finish();
        });
        assertSame(file.failure, thrown, "the encoder's exception, as it was raised");
        writer.abandon();
        assertTrue(file.closed);
        assertFalse(encoderThreadAlive(owner));
    }

    @Test
    void producerFailureEndsTheEncoder() throws Exception {
        String owner = "/pipelined-producer-fails";
        TableWriterTest.CountingFile file = new TableWriterTest.CountingFile(memFs().create(DIR.resolve("000002.sst")));
        TableWriter writer = TableWriter.pipelined(file, SMALL_BLOCKS, owner);
        for (Entry e : sampleEntries(5_000, 60, false, 4)) {
            add(writer, e);
        }
        assertTrue(encoderThreadAlive(owner), "the encoder runs until the writer ends");
        assertThrows(IllegalArgumentException.class, () -> add(writer, Entry.put("a", 1, "out of order")));
        writer.abandon();
        assertTrue(file.closed);
        assertFalse(encoderThreadAlive(owner));
        assertThrows(IllegalStateException.class, writer::finish);
    }

    /** Holds its first write at a gate, and notes a close that comes while a write is still inside. */
    private static final class GatedFile extends ForwardingWritableFile {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicBoolean writing = new AtomicBoolean();
        volatile boolean closedDuringWrite;

        GatedFile(WritableFile delegate) {
            super(delegate);
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            writing.set(true);
            entered.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            delegate.write(source);
            writing.set(false);
        }

        @Override
        public void close() throws IOException {
            if (writing.get()) {
                closedDuringWrite = true;
            }
            delegate.close();
        }
    }

    @Test
    void abandoningWaitsForTheEncodersWriteBeforeClosingTheFile() throws Exception {
        String owner = "/pipelined-abandon-during-write";
        GatedFile file = new GatedFile(memFs().create(DIR.resolve("000004.sst")));
        TableWriter writer = TableWriter.pipelined(file, SMALL_BLOCKS, owner);
        // About 400 KiB of blocks: past the first 256 KiB write, within the four batches the producer may fill.
        for (Entry e : sampleEntries(4_500, 80, false, 6)) {
            add(writer, e);
        }
        file.entered.await();
        Thread abandoning = Thread.ofPlatform().start(() -> {
            try {
                writer.abandon();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        // Either abandon returns at once (it did not wait for the encoder) or it waits for the encoder's write.
        while (abandoning.isAlive() && abandoning.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        file.gate.countDown();
        abandoning.join();
        assertFalse(file.closedDuringWrite, "the file was closed under the encoder's write");
        assertFalse(encoderThreadAlive(owner));
    }

    @Test
    void finishEndsTheEncoderAndTheFileSizeIsOnlyKnownThen() throws Exception {
        String owner = "/pipelined-finishes";
        Path path = DIR.resolve("000003.sst");
        var fs = memFs();
        try (TableWriter writer = TableWriter.pipelined(fs.create(path), SMALL_BLOCKS, owner)) {
            for (Entry e : sampleEntries(3_000, 60, true, 5)) {
                add(writer, e);
            }
            assertThrows(IllegalStateException.class, writer::estimatedFileSize);
            TableProperties properties = writer.finish();
            assertFalse(encoderThreadAlive(owner), "finish joins the encoder");
            assertEquals(fs.size(path), properties.fileSize());
            assertTrue(properties.compressedDataBlockCount() > 0);
        }
    }
}
