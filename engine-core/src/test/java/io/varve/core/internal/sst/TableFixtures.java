package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/** Shared helpers for the table tests: an entry model, the oracle's rules, and file plumbing. */
public final class TableFixtures {

    static final Path DIR = Path.of("/db");

    private TableFixtures() {
    }

    /** One internal entry as the oracle sees it. */
    record Entry(byte[] userKey, long trailer, byte[] value) {

        static Entry put(String key, long sequence, String value) {
            return new Entry(bytes(key), InternalKey.trailer(sequence, ValueKind.PUT), bytes(value));
        }

        static Entry delete(String key, long sequence) {
            return new Entry(bytes(key), InternalKey.trailer(sequence, ValueKind.DELETE), new byte[0]);
        }

        long sequence() {
            return InternalKey.sequence(trailer);
        }

        boolean isPut() {
            return InternalKey.kindCode(trailer) == ValueKind.PUT.code();
        }

        boolean isMerge() {
            return InternalKey.kindCode(trailer) == ValueKind.MERGE.code();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && Arrays.equals(userKey, e.userKey) && trailer == e.trailer
                    && Arrays.equals(value, e.value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(userKey) * 31 + Long.hashCode(trailer);
        }

        @Override
        public String toString() {
            return HexFormat.of().formatHex(userKey) + "@" + sequence() + (isPut() ? " PUT " : " DEL ")
                    + (value.length > 16 ? value.length + " bytes" : HexFormat.of().formatHex(value));
        }
    }

    /** Internal-key order: user key ascending (unsigned), trailer descending (unsigned). */
    static final Comparator<Entry> ORDER = (a, b) -> compare(a.userKey, a.trailer, b.userKey, b.trailer);

    static int compare(byte[] userKeyA, long trailerA, byte[] userKeyB, long trailerB) {
        int c = Keys.compare(userKeyA, userKeyB);
        return c != 0 ? c : Long.compareUnsigned(trailerB, trailerA);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static MemorySegment segment(byte[] bytes) {
        return MemorySegment.ofArray(bytes);
    }

    static MemorySegment segment(String s) {
        return MemorySegment.ofArray(bytes(s));
    }

    static byte[] array(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Index of the first oracle entry {@code >= (userKey, trailer)}; {@code entries.size()} if none. */
    static int lowerBound(List<Entry> sorted, byte[] userKey, long trailer) {
        int low = 0;
        int high = sorted.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            Entry e = sorted.get(mid);
            if (compare(e.userKey, e.trailer, userKey, trailer) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** The newest entry of {@code userKey} with sequence {@code <= snapshot}, or null. */
    static Entry visible(List<Entry> sorted, byte[] userKey, long snapshot) {
        int i = lowerBound(sorted, userKey, InternalKey.seekTrailer(snapshot));
        if (i < sorted.size() && Arrays.equals(sorted.get(i).userKey, userKey)) {
            return sorted.get(i);
        }
        return null;
    }

    static Entry current(InternalIterator it) {
        return new Entry(array(it.userKey()), it.trailer(), array(it.value()));
    }

    static List<Entry> scanForward(InternalIterator it) {
        List<Entry> out = new ArrayList<>();
        for (it.seekToFirst(); it.valid(); it.next()) {
            out.add(current(it));
        }
        return out;
    }

    static List<Entry> scanBackward(InternalIterator it) {
        List<Entry> out = new ArrayList<>();
        for (it.seekToLast(); it.valid(); it.prev()) {
            out.add(current(it));
        }
        return out;
    }

    static TableProperties write(FileSystem fs, Path path, List<Entry> sorted, TableOptions options)
            throws IOException {
        try (TableWriter writer = new TableWriter(fs.create(path), options)) {
            for (Entry e : sorted) {
                writer.add(segment(e.userKey), e.trailer, segment(e.value));
            }
            TableProperties properties = writer.finish();
            writer.sync();
            return properties;
        }
    }

    static MemFileSystem memFs() {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        return fs;
    }

    static TableReader open(FileSystem fs, Path path, long fileNumber, BlockCache cache) throws IOException {
        return TableReader.open(fs.openReadable(path), path, fileNumber, cache);
    }

    /** Reads a whole file into a byte array. */
    static byte[] readAll(FileSystem fs, Path path) throws IOException {
        try (ReadableFile file = fs.openReadable(path)) {
            ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(file.size()));
            file.readFully(buffer, 0);
            return buffer.array();
        }
    }

    /** Replaces the file at {@code path} with {@code contents}. */
    static void overwrite(FileSystem fs, Path path, byte[] contents) throws IOException {
        try (WritableFile file = fs.create(path)) {
            file.write(ByteBuffer.wrap(contents));
        }
    }

    /** A table of {@code count} keys "key-000000".. with one PUT each, values compressible or random. */
    static List<Entry> sampleEntries(int count, int valueSize, boolean compressible, long seed) {
        Random random = new Random(seed);
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueSize];
            if (compressible) {
                Arrays.fill(value, (byte) ('a' + i % 26));
            } else {
                random.nextBytes(value);
            }
            entries.add(new Entry(bytes(String.format("key-%06d", i)),
                    InternalKey.trailer(1000 + i, ValueKind.PUT), value));
        }
        return entries;
    }

    /** A readable file wrapper that records whether it was closed. */
    /** A valid block whose contents are exactly {@code size} bytes, a new instance per call (size in [19, 16000]). */
    static Block blockOfSize(int size) throws IOException {
        BlockBuilder builder = new BlockBuilder(1, size);
        // shared, key length, value length varints (1 byte each while value < 128, else 2) + key + restarts;
        // a 9-byte key where an 8-byte one would leave a value of exactly 128 bytes (and a 2-byte varint).
        byte[] key = new byte[size == 3 + 8 + 128 + 8 ? 9 : 8];
        int valueLength = size - (3 + key.length + 8);
        if (valueLength >= 128) {
            valueLength--;
        }
        builder.add(key, key.length, new byte[valueLength], valueLength);
        ByteBuilder contents = builder.finish();
        if (contents.size() != size) {
            throw new IllegalArgumentException("cannot build a block of " + size + " bytes");
        }
        return Block.parse(MemorySegment.ofArray(contents.toArray()), Path.of("t"), 0);
    }

    static final class TrackingReadableFile implements ReadableFile {
        private final ReadableFile delegate;
        volatile boolean closed;

        TrackingReadableFile(ReadableFile delegate) {
            this.delegate = delegate;
        }

        @Override
        public long size() throws IOException {
            return delegate.size();
        }

        @Override
        public int read(ByteBuffer destination, long position) throws IOException {
            return delegate.read(destination, position);
        }

        @Override
        public MemorySegment map(Arena arena) throws IOException {
            return delegate.map(arena);
        }

        @Override
        public void close() throws IOException {
            closed = true;
            delegate.close();
        }
    }
}
