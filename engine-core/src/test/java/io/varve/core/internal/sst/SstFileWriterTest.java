package io.varve.core.internal.sst;

import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SstFileWriterTest {

    private static final Path PATH = DIR.resolve("bulk.sst");

    private static MemFileSystem writeSample() throws Exception {
        MemFileSystem fs = memFs();
        try (SstFileWriter writer = new SstFileWriter(fs, PATH, TableOptions.defaults())) {
            writer.put(bytes("apple"), bytes("red"));
            writer.delete(bytes("banana"));
            writer.put(bytes("cherry"), bytes("dark"));
            TableProperties properties = writer.finish();
            assertEquals(3, properties.entryCount());
            assertEquals(1, properties.deletionCount());
            assertEquals(0, properties.largestSequence());
            assertEquals(fs.size(PATH), properties.fileSize());
        }
        return fs;
    }

    @Test
    void entriesAreWrittenAtSequenceZero() throws Exception {
        MemFileSystem fs = writeSample();
        TableReader reader = open(fs, PATH, 1, null);
        try (InternalIterator it = reader.newIterator()) {
            assertEquals(List.of(Entry.put("apple", 0, "red"), Entry.delete("banana", 0),
                    Entry.put("cherry", 0, "dark")), scanForward(it));
        } finally {
            reader.release();
        }
    }

    @Test
    void aGlobalSequenceIsPresentedInsteadOfZero() throws Exception {
        MemFileSystem fs = writeSample();
        TableReader reader = TableReader.open(fs.openReadable(PATH), PATH, 1, null, 42);
        try {
            try (InternalIterator it = reader.newIterator()) {
                assertEquals(List.of(Entry.put("apple", 42, "red"), Entry.delete("banana", 42),
                        Entry.put("cherry", 42, "dark")), scanForward(it));
                it.seek(segment("banana"), InternalKey.seekTrailer(41));
                assertArrayEquals(bytes("cherry"), array(it.userKey()), "banana@42 is newer than snapshot 41");
                it.seek(segment("banana"), InternalKey.seekTrailer(42));
                assertEquals(InternalKey.trailer(42, ValueKind.DELETE), it.trailer());
            }
            assertEquals(LookupResult.Status.NOT_FOUND, reader.get(segment("apple"), 41).status());
            LookupResult found = reader.get(segment("apple"), 42);
            assertEquals(LookupResult.Status.FOUND, found.status());
            assertEquals(42, found.sequence());
            assertEquals(LookupResult.Status.DELETED, reader.get(segment("banana"), 100).status());
            assertEquals(0, reader.properties().largestSequence(), "properties describe the stored bytes");
        } finally {
            reader.release();
        }
    }

    @Test
    void theColumnFamilyIsRecordedOnlyForExternalTables() throws Exception {
        MemFileSystem fs = writeSample();
        Path other = DIR.resolve("other.sst");
        try (SstFileWriter writer = new SstFileWriter(fs, other, TableOptions.defaults(), "users")) {
            writer.put(bytes("k"), bytes("v"));
            assertEquals("users", writer.finish().columnFamily());
        }
        Path internal = DIR.resolve("internal.sst");
        write(fs, internal, List.of(Entry.put("a", 5, "x")), TableOptions.defaults());
        for (var expected : List.of(java.util.Map.entry(PATH, "default"), java.util.Map.entry(other, "users"))) {
            TableReader reader = open(fs, expected.getKey(), 1, null);
            try {
                assertEquals(expected.getValue(), reader.properties().columnFamily());
            } finally {
                reader.release();
            }
        }
        TableReader reader = open(fs, internal, 1, null);
        try {
            assertNull(reader.properties().columnFamily(), "the engine's own tables name no family");
        } finally {
            reader.release();
        }
        assertThrows(IllegalArgumentException.class,
                () -> new SstFileWriter(fs, DIR.resolve("x.sst"), TableOptions.defaults(), ""));
    }

    @Test
    void aGlobalSequenceIsRefusedForTablesWithRealSequences() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, List.of(Entry.put("a", 5, "x")), TableOptions.defaults());
        TrackingReadableFile file = new TrackingReadableFile(fs.openReadable(PATH));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TableReader.open(file, PATH, 1, null, 9));
        assertTrue(e.getMessage().contains("sequence 0"), e.getMessage());
        assertTrue(file.closed);
    }

    @Test
    void keysOutOfOrderAreRejectedWithBothKeysNamed() throws Exception {
        MemFileSystem fs = memFs();
        try (SstFileWriter writer = new SstFileWriter(fs, PATH, TableOptions.defaults())) {
            writer.put(bytes("m"), bytes("1"));
            IllegalArgumentException before = assertThrows(IllegalArgumentException.class,
                    () -> writer.put(bytes("b"), bytes("2")));
            assertTrue(before.getMessage().contains("strictly increasing"), before.getMessage());
            assertTrue(before.getMessage().contains("'b'") && before.getMessage().contains("'m'"),
                    before.getMessage());
            IllegalArgumentException duplicate = assertThrows(IllegalArgumentException.class,
                    () -> writer.delete(bytes("m")));
            assertTrue(duplicate.getMessage().contains("duplicate"), duplicate.getMessage());

            // A rejected key leaves the writer usable.
            writer.put(bytes("z"), bytes("3"));
            assertEquals(2, writer.finish().entryCount());
        }
        TableReader reader = open(fs, PATH, 1, null);
        try (InternalIterator it = reader.newIterator()) {
            assertEquals(List.of(Entry.put("m", 0, "1"), Entry.put("z", 0, "3")), scanForward(it));
        } finally {
            reader.release();
        }
    }

    @Test
    void keysCompareAsUnsignedBytes() throws Exception {
        MemFileSystem fs = memFs();
        try (SstFileWriter writer = new SstFileWriter(fs, PATH, TableOptions.defaults())) {
            writer.put(new byte[] {0x7F}, bytes("a"));
            writer.put(new byte[] {(byte) 0x80}, bytes("b"));
            assertThrows(IllegalArgumentException.class, () -> writer.put(new byte[] {0x01}, bytes("c")));
            writer.finish();
        }
    }

    @Test
    void closingWithoutFinishDeletesThePartialFile() throws Exception {
        MemFileSystem fs = memFs();
        try (SstFileWriter writer = new SstFileWriter(fs, PATH, TableOptions.defaults())) {
            writer.put(bytes("a"), bytes("1"));
            assertTrue(fs.exists(PATH));
        }
        assertFalse(fs.exists(PATH));
    }

    @Test
    void anEmptyTableCannotBeFinishedAndLeavesNoFile() throws Exception {
        MemFileSystem fs = memFs();
        try (SstFileWriter writer = new SstFileWriter(fs, PATH, TableOptions.defaults())) {
            assertThrows(IllegalStateException.class, writer::finish);
        }
        assertFalse(fs.exists(PATH));
    }

    @Test
    void finishedFilesSurviveAMachineCrash() throws Exception {
        MemFileSystem fs = writeSample();
        fs.crash();
        assertTrue(fs.exists(PATH), "finish syncs the file and its directory entry");
        TableReader reader = open(fs, PATH, 1, null);
        try {
            assertEquals(3, reader.properties().entryCount());
            assertArrayEquals(bytes("dark"), array(reader.get(segment("cherry"), 0).value()));
        } finally {
            reader.release();
        }
    }

    @Test
    void nothingCanBeAddedAfterFinish() throws Exception {
        MemFileSystem fs = memFs();
        try (SstFileWriter writer = new SstFileWriter(fs, PATH, TableOptions.defaults())) {
            writer.put(bytes("a"), bytes("1"));
            writer.finish();
            assertThrows(IllegalStateException.class, () -> writer.put(bytes("b"), bytes("2")));
            assertThrows(IllegalStateException.class, writer::finish);
        }
        assertTrue(fs.exists(PATH), "closing after finish keeps the file");
    }
}
