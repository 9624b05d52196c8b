package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.base.CorruptionException;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.WritableFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Shared fixtures of the WAL tests: payloads, in-memory files, and the oracle for truncated logs. */
final class WalTestSupport {

    static final Path PATH = Path.of("/wal/000042.log");

    private WalTestSupport() {
    }

    /** Deterministic pseudo-random bytes, so a failing case can be rebuilt from its size and seed. */
    static byte[] payload(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /**
     * The payload size that, appended to a log of {@code logSize} bytes, makes the record end with exactly
     * {@code leave} bytes left in its block (possibly after spilling into the next block). With
     * {@code leave < HEADER_SIZE} the next record must pad; with {@code leave == HEADER_SIZE} it starts with
     * an empty fragment.
     */
    static int sizeLeaving(long logSize, int leave) {
        int target = (WalFormat.BLOCK_SIZE - leave) % WalFormat.BLOCK_SIZE;
        for (int size = 0; size <= 2 * WalFormat.BLOCK_SIZE; size++) {
            long end = logSize + WalFormat.encodedLength(logSize, size);
            if (end % WalFormat.BLOCK_SIZE == target) {
                return size;
            }
        }
        throw new AssertionError("no size leaves " + leave + " bytes after offset " + logSize);
    }

    /** A log as the writer produced it, with each logical record's first header offset and end offset. */
    record Log(byte[] bytes, List<byte[]> payloads, long[] starts, long[] ends) {

        int count() {
            return payloads.size();
        }
    }

    /** Writes {@code payloads} with one writer into memory and remembers where each record starts and ends. */
    static Log encode(List<byte[]> payloads, long logNumber) throws IOException {
        CapturingFile file = new CapturingFile();
        long[] starts = new long[payloads.size()];
        long[] ends = new long[payloads.size()];
        try (WalWriter writer = new WalWriter(file, logNumber)) {
            for (int i = 0; i < payloads.size(); i++) {
                starts[i] = headerStart(writer.size());
                writer.append(ByteBuffer.wrap(payloads.get(i)));
                ends[i] = writer.size();
            }
        }
        return new Log(file.bytes(), payloads, starts, ends);
    }

    /** Where the next record's header goes when the log is {@code logSize} bytes long (after any trailer). */
    static long headerStart(long logSize) {
        int room = WalFormat.BLOCK_SIZE - (int) (logSize % WalFormat.BLOCK_SIZE);
        return room < WalFormat.HEADER_SIZE ? logSize + room : logSize;
    }

    /** What a complete read of a log returned and how it ended. */
    record Outcome(List<byte[]> records, WalReader.End end, CorruptionException error, long offset) {
    }

    /**
     * Reads until the reader ends. Only a {@link CorruptionException} is captured: any other exception
     * escapes and fails the calling test.
     */
    static Outcome readAll(ReadableFile file, long logNumber) throws IOException {
        try (WalReader reader = new WalReader(file, PATH, logNumber)) {
            List<byte[]> records = new ArrayList<>();
            try {
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    records.add(record);
                }
            } catch (CorruptionException e) {
                return new Outcome(records, null, e, reader.offset());
            }
            return new Outcome(records, reader.end(), null, reader.offset());
        }
    }

    static Outcome readAll(byte[] bytes, long logNumber) throws IOException {
        return readAll(new BytesFile(bytes, bytes.length), logNumber);
    }

    /**
     * The oracle for a log cut to {@code length} bytes: the records that end within the cut come back, and
     * the read ends cleanly if the cut falls at a record's end or in the trailer padding after it, else with
     * a truncation at the header of the first incomplete record.
     */
    static void assertTruncatedRead(Log log, long length, Outcome outcome) {
        int complete = 0;
        while (complete < log.count() && log.ends()[complete] <= length) {
            complete++;
        }
        assertPrefix(log.payloads(), outcome.records(), complete);
        long validEnd = complete == 0 ? 0 : log.ends()[complete - 1];
        assertEquals(validEnd, outcome.offset(), "valid prefix");
        boolean clean = complete == log.count() || length <= log.starts()[complete];
        if (clean) {
            assertEquals(null, outcome.error(), "a cut at a record boundary or in padding is a clean end");
            assertEquals(WalReader.End.END_OF_FILE, outcome.end());
        } else {
            TruncatedRecordException e = assertTruncation(outcome);
            assertEquals(log.starts()[complete], e.offset(), "truncation names the incomplete record's start");
        }
    }

    static TruncatedRecordException assertTruncation(Outcome outcome) {
        if (!(outcome.error() instanceof TruncatedRecordException e)) {
            throw new AssertionError("expected a TruncatedRecordException, got "
                    + (outcome.error() == null ? "a clean end " + outcome.end() : outcome.error().toString()),
                    outcome.error());
        }
        assertEquals(PATH, e.file());
        return e;
    }

    /** {@code actual} holds exactly the first {@code count} of {@code expected}, byte for byte. */
    static void assertPrefix(List<byte[]> expected, List<byte[]> actual, int count) {
        assertEquals(count, actual.size(), "number of records read back");
        for (int i = 0; i < count; i++) {
            assertArrayEquals(expected.get(i), actual.get(i), "record " + i);
        }
    }

    /** A read-only file over the first {@code length} bytes of an array. */
    static final class BytesFile implements ReadableFile {
        private final byte[] bytes;
        private final int length;

        BytesFile(byte[] bytes, int length) {
            this.bytes = bytes;
            this.length = length;
        }

        @Override
        public long size() {
            return length;
        }

        @Override
        public int read(ByteBuffer destination, long position) {
            if (position >= length) {
                return destination.hasRemaining() ? -1 : 0;
            }
            int n = (int) Math.min(destination.remaining(), length - position);
            destination.put(bytes, (int) position, n);
            return n;
        }

        @Override
        public MemorySegment map(Arena arena) {
            throw new UnsupportedOperationException("the WAL reader must not map its file");
        }

        @Override
        public void close() {
        }
    }

    /** A writable file in memory that counts write and sync calls. */
    static final class CapturingFile implements WritableFile {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int writes;
        /** Writes handed a heap buffer, which a file channel would first copy into native memory. */
        int heapWrites;
        int syncs;
        boolean closed;

        @Override
        public void write(ByteBuffer source) {
            writes++;
            if (!source.isDirect()) {
                heapWrites++;
            }
            byte[] chunk = new byte[source.remaining()];
            source.get(chunk);
            out.writeBytes(chunk);
        }

        @Override
        public void sync() {
            syncs++;
        }

        @Override
        public long size() {
            return out.size();
        }

        @Override
        public void close() {
            closed = true;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }

    /** Wraps a writable file to count write calls. */
    static final class CountingFile extends ForwardingWritableFile {
        int writes;

        CountingFile(WritableFile delegate) {
            super(delegate);
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            writes++;
            delegate.write(source);
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
