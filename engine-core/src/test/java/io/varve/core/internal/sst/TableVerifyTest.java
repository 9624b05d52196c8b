package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TableReader#verifyContents()}: what ingestion relies on to refuse a damaged or unsorted file. */
class TableVerifyTest {

    private static final Path PATH = DIR.resolve("t.sst");
    /** Uncompressed, small blocks of equal-size entries: every full data block has the same size. */
    private static final TableOptions OPTIONS = TableOptions.defaults().withCompression(false).withBlockSize(256)
            .withBloomBitsPerKey(0);

    private static List<Entry> entries() {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            entries.add(Entry.put(String.format("key%05d", i), 0, "value-" + String.format("%05d", i)));
        }
        return entries;
    }

    @Test
    void aSoundTableVerifies() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries(), OPTIONS);
        assertTrue(verifies(fs, new CpuSlice()) > 3);
    }

    /** Checks the table at {@link #PATH} with {@code slice}; returns its data block count. */
    private static int verifies(MemFileSystem fs, CpuSlice slice) throws java.io.IOException {
        TableReader reader = open(fs, PATH, 1, null);
        try {
            reader.verifyContents(slice);
            return reader.dataBlockCount();
        } finally {
            reader.release();
        }
    }

    @Test
    void swappedDataBlocksAreReportedAtTheFirstMisplacedBlock() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries(), OPTIONS);
        long offset0;
        long offset1;
        int size;
        TableReader reader = open(fs, PATH, 1, null);
        try {
            offset0 = reader.dataBlockOffset(0);
            offset1 = reader.dataBlockOffset(1);
            size = reader.dataBlockSize(0);
            assertEquals(size, reader.dataBlockSize(1), "the fixture needs two blocks of equal size");
        } finally {
            reader.release();
        }
        // Each block keeps its own valid checksum: only the order of the entries is wrong now.
        byte[] bytes = readAll(fs, PATH);
        int length = size + TableFormat.BLOCK_TRAILER_SIZE;
        byte[] first = java.util.Arrays.copyOfRange(bytes, (int) offset0, (int) offset0 + length);
        System.arraycopy(bytes, (int) offset1, bytes, (int) offset0, length);
        System.arraycopy(first, 0, bytes, (int) offset1, length);
        overwrite(fs, PATH, bytes);

        TableReader swapped = open(fs, PATH, 1, null);
        try {
            CorruptionException e = assertThrows(CorruptionException.class, swapped::verifyContents);
            assertEquals(PATH, e.file());
            assertEquals(offset0, e.offset());
        } finally {
            swapped.release();
        }
    }

    @Test
    void aDamagedDataBlockIsReportedAtItsOffset() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries(), OPTIONS);
        long offset2 = dataBlockOffset(fs, 2);
        byte[] bytes = readAll(fs, PATH);
        bytes[(int) offset2 + 7] ^= 0x40;
        overwrite(fs, PATH, bytes);
        // Yielding between blocks (here the second time at every block) changes when the check runs, not what it finds.
        for (CpuSlice slice : List.of(new CpuSlice(),
                new CpuSlice(1))) {
            TableReader damaged = open(fs, PATH, 1, null);
            try {
                CorruptionException e = assertThrows(CorruptionException.class, () -> damaged.verifyContents(slice));
                assertEquals(offset2, e.offset());
            } finally {
                damaged.release();
            }
        }
    }

    /** Two entries of one block swapped, the block's checksum recomputed: only the entry walk can tell. */
    @Test
    void entriesOutOfOrderWithinABlockAreReported() throws Exception {
        // A restart at every entry: each entry holds its whole key, and all entries have the same size.
        int entry = 3 + "key00000".length() + TableFormat.KEY_TRAILER_SIZE + "value-00000".length();
        assertReportedAtBlock(1, 1, (bytes, offset, size) -> {
            byte[] first = java.util.Arrays.copyOfRange(bytes, offset, offset + entry);
            System.arraycopy(bytes, offset + entry, bytes, offset, entry);
            System.arraycopy(first, 0, bytes, offset + entry, entry);
        }, "out of order");
    }

    /** A restart point that a seek would start decoding from must be the start of an entry. */
    @Test
    void aRestartPointInsideAnEntryIsReported() throws Exception {
        assertReportedAtBlock(2, 0, (bytes, offset, size) -> java.nio.ByteBuffer.wrap(bytes)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putInt(restartSlot(bytes, offset, size, 1), restartPoint(bytes, offset, size, 1) + 1),
                "restart point 1");
    }

    /** A seek decodes from a restart point with no previous key: the entry there must hold its whole key. */
    @Test
    void aRestartEntryThatSharesAPrefixIsReported() throws Exception {
        // An entry's first byte is its shared length.
        assertReportedAtBlock(2, 0, (bytes, offset, size) -> bytes[offset + restartPoint(bytes, offset, size, 1)] = 1,
                "shares 1 bytes with a 0-byte previous key");
    }

    /** Changes the stored bytes of one uncompressed data block, {@code file[offset, offset + size)}. */
    private interface BlockChange {
        void apply(byte[] file, int offset, int size);
    }

    /**
     * Writes the fixture with the given restart interval, changes data block {@code block} and recomputes its
     * checksum, and expects the check to report that block with a message containing {@code message}.
     */
    private static void assertReportedAtBlock(int restartInterval, int block, BlockChange change, String message)
            throws java.io.IOException {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries(), OPTIONS.withRestartInterval(restartInterval));
        long[] where = dataBlockOffsetAndSize(fs, block);
        byte[] bytes = readAll(fs, PATH);
        change.apply(bytes, (int) where[0], (int) where[1]);
        TableVerifyProperties.resealBlock(bytes, where[0], (int) where[1]);
        overwrite(fs, PATH, bytes);
        TableReader reader = open(fs, PATH, 1, null);
        try {
            CorruptionException e = assertThrows(CorruptionException.class, reader::verifyContents);
            assertEquals(PATH, e.file());
            assertEquals(where[0], e.offset());
            assertTrue(e.getMessage().contains(message), e.getMessage());
        } finally {
            reader.release();
        }
    }

    /** Where restart point {@code i} of the uncompressed block stored at {@code offset} is kept in the file. */
    private static int restartSlot(byte[] file, int offset, int size, int i) {
        int end = offset + size - TableFormat.RESTART_ENTRY_SIZE; // the restart count
        int count = java.nio.ByteBuffer.wrap(file).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(end);
        return end - (count - i) * TableFormat.RESTART_ENTRY_SIZE;
    }

    /** Restart point {@code i}: a block offset. */
    private static int restartPoint(byte[] file, int offset, int size, int i) {
        return java.nio.ByteBuffer.wrap(file).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .getInt(restartSlot(file, offset, size, i));
    }

    /** Yielding between blocks (here at every block) changes when the check runs, not what it finds. */
    @Test
    void aCheckSlicedAtEveryBlockPassesASoundTable() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries(), OPTIONS);
        assertTrue(verifies(fs, new CpuSlice(1)) > 3);
        assertThrows(IllegalArgumentException.class, () -> new CpuSlice(0));
    }

    /** Ingestion checks small files from a copy in memory and large ones through a mapping: same verdicts. */
    @Test
    void aCopyInMemoryAndAMappingGiveTheSameVerdicts() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries(), OPTIONS);
        for (boolean copied : new boolean[] {true, false}) {
            TableReader sound = openForCheck(fs, copied);
            try {
                sound.verifyContents();
                assertEquals(200, sound.properties().entryCount(), copied ? "copied" : "mapped");
            } finally {
                sound.release();
            }
        }
        byte[] bytes = readAll(fs, PATH);
        long offset = dataBlockOffset(fs, 1);
        bytes[(int) offset + 3] ^= 0x10;
        overwrite(fs, PATH, bytes);
        for (boolean copied : new boolean[] {true, false}) {
            TableReader damaged = openForCheck(fs, copied);
            try {
                CorruptionException e = assertThrows(CorruptionException.class, damaged::verifyContents);
                assertEquals(PATH, e.file());
                assertEquals(offset, e.offset(), copied ? "copied" : "mapped");
            } finally {
                damaged.release();
            }
        }
        // A file cut short: the footer is missing, whichever way it is read.
        overwrite(fs, PATH, java.util.Arrays.copyOf(bytes, bytes.length - 10));
        assertThrows(CorruptionException.class, () -> openForCheck(fs, true));
        assertThrows(CorruptionException.class, () -> openForCheck(fs, false));
    }

    /** A reader the way ingestion checks a file: from a copy in memory, or through a mapping. */
    private static TableReader openForCheck(MemFileSystem fs, boolean copied) throws java.io.IOException {
        return TableReader.openConfined(fs.openReadable(PATH), PATH, copied ? Long.MAX_VALUE : -1);
    }

    private static long dataBlockOffset(MemFileSystem fs, int block) throws java.io.IOException {
        return dataBlockOffsetAndSize(fs, block)[0];
    }

    private static long[] dataBlockOffsetAndSize(MemFileSystem fs, int block) throws java.io.IOException {
        TableReader reader = open(fs, PATH, 1, null);
        try {
            return new long[] {reader.dataBlockOffset(block), reader.dataBlockSize(block)};
        } finally {
            reader.release();
        }
    }
}
