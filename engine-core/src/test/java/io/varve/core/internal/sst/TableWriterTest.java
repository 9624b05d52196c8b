package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.WritableFile;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableWriterTest {

    private static final Path PATH = DIR.resolve("000005.sst");

    /** Counts calls and remembers whether the file was synced or closed. */
    static final class CountingFile extends ForwardingWritableFile {
        int writes;
        int syncs;
        boolean closed;

        CountingFile(WritableFile delegate) {
            super(delegate);
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            writes++;
            delegate.write(source);
        }

        @Override
        public void sync() throws IOException {
            syncs++;
            delegate.sync();
        }

        @Override
        public void close() throws IOException {
            closed = true;
            delegate.close();
        }
    }

    private static void add(TableWriter writer, Entry e) throws IOException {
        writer.add(segment(e.userKey()), e.trailer(), segment(e.value()));
    }

    @Test
    void outOfOrderEntriesAreRejectedNamingBothKeys() throws Exception {
        MemFileSystem fs = memFs();
        try (TableWriter writer = new TableWriter(fs.create(PATH), TableOptions.defaults())) {
            add(writer, Entry.put("m", 5, "x"));
            IllegalArgumentException smaller = assertThrows(IllegalArgumentException.class,
                    () -> add(writer, Entry.put("b", 9, "y")));
            assertTrue(smaller.getMessage().contains("'b' @ seq 9 PUT"), smaller.getMessage());
            assertTrue(smaller.getMessage().contains("'m' @ seq 5 PUT"), smaller.getMessage());
            // Same user key: a newer sequence must come first, so seq 6 after seq 5 is out of order.
            IllegalArgumentException newer = assertThrows(IllegalArgumentException.class,
                    () -> add(writer, Entry.put("m", 6, "y")));
            assertTrue(newer.getMessage().contains("'m' @ seq 6 PUT"), newer.getMessage());
            assertThrows(IllegalArgumentException.class, () -> add(writer, Entry.put("m", 5, "again")));
            // Same sequence, PUT (kind 1) sorts before DELETE (kind 0): DELETE after PUT is in order.
            add(writer, Entry.delete("m", 5));
            add(writer, Entry.put("m", 4, "older"));
            add(writer, Entry.put("n", 100, "next"));
            assertEquals(4, writer.finish().entryCount());
        }
        TableReader reader = open(fs, PATH, 1, null);
        try (InternalIterator it = reader.newIterator()) {
            assertEquals(List.of(Entry.put("m", 5, "x"), Entry.delete("m", 5), Entry.put("m", 4, "older"),
                    Entry.put("n", 100, "next")), scanForward(it));
        } finally {
            reader.release();
        }
    }

    @Test
    void unknownKindsAreRejected() throws Exception {
        try (TableWriter writer = new TableWriter(memFs().create(PATH), TableOptions.defaults())) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> writer.add(segment("k"), (3L << 8) | 7, segment("v")));
            assertTrue(e.getMessage().contains("kind 7"), e.getMessage());
        }
    }

    @Test
    void lifecycleIsEnforced() throws Exception {
        MemFileSystem fs = memFs();
        CountingFile file = new CountingFile(fs.create(PATH));
        TableWriter writer = new TableWriter(file, TableOptions.defaults());
        assertThrows(IllegalStateException.class, writer::finish, "empty table");
        assertThrows(IllegalStateException.class, writer::sync, "sync before finish");
        add(writer, Entry.put("a", 1, "1"));
        writer.finish();
        assertEquals(0, file.syncs, "finish does not sync");
        assertThrows(IllegalStateException.class, () -> add(writer, Entry.put("b", 1, "1")));
        assertThrows(IllegalStateException.class, writer::finish);
        writer.sync();
        assertEquals(1, file.syncs);
        writer.close();
        assertTrue(file.closed);
    }

    @Test
    void abandoningClosesTheFileAndStopsTheWriter() throws Exception {
        CountingFile file = new CountingFile(memFs().create(PATH));
        TableWriter writer = new TableWriter(file, TableOptions.defaults());
        add(writer, Entry.put("a", 1, "1"));
        writer.abandon();
        assertTrue(file.closed);
        assertThrows(IllegalStateException.class, () -> add(writer, Entry.put("b", 1, "1")));
        assertThrows(IllegalStateException.class, writer::finish);
    }

    @Test
    void blocksReachTheFileInFewLargeWrites() throws Exception {
        MemFileSystem fs = memFs();
        CountingFile file = new CountingFile(fs.create(PATH));
        List<Entry> entries = sampleEntries(20_000, 60, false, 8);
        TableProperties properties;
        try (TableWriter writer = new TableWriter(file, TableOptions.defaults().withBlockSize(256))) {
            for (Entry e : entries) {
                add(writer, e);
            }
            properties = writer.finish();
        }
        assertTrue(properties.dataBlockCount() > 1000, "many small blocks: " + properties.dataBlockCount());
        long bound = properties.fileSize() / TableFormat.WRITE_BUFFER_SIZE + 2;
        assertTrue(file.writes <= bound, file.writes + " writes for " + properties.fileSize() + " bytes");
        assertEquals(fs.size(PATH), properties.fileSize());
    }

    @Test
    void separatorsBetweenBlocksAreShortened() throws Exception {
        MemFileSystem fs = memFs();
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            // Keys differ in their first byte, then share a long tail.
            entries.add(Entry.put((char) ('a' + i) + "-a-long-shared-tail-0000000000000000", 1, "v"));
        }
        // One entry per block.
        write(fs, PATH, entries, TableOptions.defaults().withBlockSize(1));
        TableReader reader = open(fs, PATH, 1, null);
        try {
            assertEquals(20, reader.dataBlockCount());
            for (int i = 0; i < 19; i++) {
                assertArrayEquals(new byte[] {(byte) ('a' + i + 1)}, array(reader.indexSeparatorUserKey(i)));
            }
            assertArrayEquals(entries.getLast().userKey(), array(reader.indexSeparatorUserKey(19)),
                    "the last separator is the last key");
        } finally {
            reader.release();
        }
    }

    @Test
    void propertiesDescribeTheTable() throws Exception {
        MemFileSystem fs = memFs();
        TableOptions options = TableOptions.defaults().withBlockSize(1024).withRestartInterval(4)
                .withBloomBitsPerKey(12);
        List<Entry> entries = new ArrayList<>(sampleEntries(300, 200, true, 3));
        entries.add(Entry.delete("zz-deleted", 7));
        TableProperties p = write(fs, PATH, entries, options);
        assertEquals(301, p.entryCount());
        assertEquals(1, p.deletionCount());
        assertEquals(7, p.smallestSequence());
        assertEquals(1299, p.largestSequence());
        assertEquals(12, p.bloomBitsPerKey());
        assertEquals(1024, p.blockSize());
        assertEquals(4, p.restartInterval());
        assertEquals(TableFormat.CREATOR, p.creator());
        assertTrue(p.creationTimeMillis() > 0);
        assertTrue(p.compressedDataBlockCount() > 0);
        assertTrue(p.dataBytes() < p.uncompressedDataBytes(), p.toString());
        assertTrue(p.dataBytes() < p.fileSize());

        TableReader reader = open(fs, PATH, 1, null);
        try {
            TableProperties read = reader.properties();
            assertEquals(p.toString(), read.toString());
            assertEquals(p.creationTimeMillis(), read.creationTimeMillis());
            assertEquals(p.fileSize(), read.fileSize());
        } finally {
            reader.release();
        }
    }

    @Test
    void incompressibleOrUncompressedTablesStoreNoCompressedBlocks() throws Exception {
        MemFileSystem fs = memFs();
        TableProperties random = write(fs, PATH, sampleEntries(300, 200, false, 3), TableOptions.defaults());
        assertEquals(0, random.compressedDataBlockCount(), "LZ4 is used only when it saves 12.5%");
        TableProperties off = write(fs, PATH, sampleEntries(300, 200, true, 3),
                TableOptions.defaults().withCompression(false));
        assertEquals(0, off.compressedDataBlockCount());
        assertEquals(off.uncompressedDataBytes() + off.dataBlockCount() * TableFormat.BLOCK_TRAILER_SIZE,
                off.dataBytes());
    }

    @Test
    void emptyKeysAndValuesAndLargeValuesRoundTrip() throws Exception {
        MemFileSystem fs = memFs();
        byte[] large = new byte[300_000];
        new java.util.Random(1).nextBytes(large);
        List<Entry> entries = List.of(new Entry(new byte[0], 5L << 8 | 1, new byte[0]),
                new Entry(new byte[] {0}, 1L << 8 | 1, large), new Entry(new byte[] {(byte) 0xFF}, 0, new byte[0]));
        write(fs, PATH, entries, TableOptions.defaults().withBlockSize(64));
        TableReader reader = open(fs, PATH, 1, null);
        try (InternalIterator it = reader.newIterator()) {
            assertEquals(entries, scanForward(it));
            assertArrayEquals(large, array(reader.get(MemorySegment.ofArray(new byte[] {0}), 9).value()));
        } finally {
            reader.release();
        }
    }
}
