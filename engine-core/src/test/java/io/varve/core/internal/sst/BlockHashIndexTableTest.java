package io.varve.core.internal.sst;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.base.Checksums;
import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.LookupResult;
import io.varve.core.sst.TableOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tables whose data blocks carry hash indexes: the format version and property that announce them, point
 * lookups through them, and damage to an index whose block checksum still matches (as a faulty writer would
 * leave it): a bucket naming a restart the block lacks is corruption at that block, and a well-formed but
 * wrong index changes no answer and fails the full check.
 */
class BlockHashIndexTableTest {

    private static final Path PATH = DIR.resolve("000011.sst");
    /** Small blocks with several restart intervals each, stored uncompressed so tests can edit them. */
    private static final TableOptions OPTIONS = TableOptions.defaults().withBlockSize(512).withRestartInterval(2)
            .withCompression(false).withDataBlockHashIndex(true);

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theIndexIsAnnouncedByVersionAndProperty(boolean hashIndex) throws Exception {
        MemFileSystem fs = memFs();
        List<Entry> entries = sampleEntries(200, 40, false, 5);
        write(fs, PATH, entries, OPTIONS.withDataBlockHashIndex(hashIndex));
        byte[] file = readAll(fs, PATH);
        int version = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN)
                .getInt(file.length - TableFormat.FOOTER_SIZE + TableFormat.FOOTER_VERSION);
        assertEquals(hashIndex ? TableFormat.HASH_INDEX_FORMAT_VERSION : TableFormat.PLAIN_FORMAT_VERSION, version);
        TableReader reader = open(fs, PATH, 11, null);
        try {
            assertEquals(hashIndex, reader.properties().dataBlockHashIndex());
            assertAllFound(reader, entries);
            reader.verifyContents();
        } finally {
            reader.release();
        }
    }

    @Test
    void aBucketNamingAMissingRestartIsCorruptionAtItsBlock() throws Exception {
        MemFileSystem fs = memFs();
        List<Entry> entries = sampleEntries(200, 40, false, 6);
        write(fs, PATH, entries, OPTIONS);
        long[] offsets = blockOffsets(fs);
        int[] sizes = blockSizes(fs);
        byte[] file = readAll(fs, PATH);
        int block = 1;
        int end = (int) offsets[block] + sizes[block];
        int buckets = u16(file, end - 2);
        int restarts = u32(file, end - TableFormat.HASH_INDEX_COUNT_SIZE - buckets - 4);
        assertTrue(buckets > 0 && restarts < TableFormat.HASH_BUCKET_COLLISION, "block with a usable index");
        for (int i = 0; i < buckets; i++) {
            file[end - 2 - buckets + i] = (byte) restarts;
        }
        resealBlock(file, offsets[block], sizes[block]);
        overwrite(fs, PATH, file);

        TableReader reader = open(fs, PATH, 11, null);
        try {
            int failures = 0;
            for (Entry e : entries) {
                try {
                    LookupResult result = reader.get(segment(e.userKey()), InternalKey.MAX_SEQUENCE);
                    assertEquals(LookupResult.Status.FOUND, result.status(), e.toString());
                    assertArrayEquals(e.value(), array(result.value()), e.toString());
                } catch (CorruptionException c) {
                    assertEquals(PATH, c.file(), c.getMessage());
                    assertEquals(offsets[block], c.offset(), c.getMessage());
                    failures++;
                }
            }
            assertTrue(failures > 0, "keys of the damaged block report it");
        } finally {
            reader.release();
        }
    }

    @Test
    void aWellFormedWrongIndexChangesNoAnswerAndFailsTheFullCheck() throws Exception {
        MemFileSystem fs = memFs();
        List<Entry> entries = sampleEntries(200, 40, false, 7);
        write(fs, PATH, entries, OPTIONS);
        long[] offsets = blockOffsets(fs);
        int[] sizes = blockSizes(fs);
        byte[] file = readAll(fs, PATH);
        // Every bucket of every block names the block's last restart interval: right for few keys.
        for (int block = 0; block < offsets.length; block++) {
            int end = (int) offsets[block] + sizes[block];
            int buckets = u16(file, end - 2);
            int restarts = u32(file, end - TableFormat.HASH_INDEX_COUNT_SIZE - buckets - 4);
            for (int i = 0; i < buckets; i++) {
                file[end - 2 - buckets + i] = (byte) (restarts - 1);
            }
            resealBlock(file, offsets[block], sizes[block]);
        }
        overwrite(fs, PATH, file);

        TableReader reader = open(fs, PATH, 11, null);
        try {
            assertAllFound(reader, entries);
            CorruptionException e = assertThrows(CorruptionException.class, reader::verifyContents);
            assertEquals(PATH, e.file());
            assertEquals(offsets[0], e.offset(), e.getMessage());
        } finally {
            reader.release();
        }
    }

    @Test
    void aVersion3TableWithoutThePropertyIsCorruption() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, sampleEntries(50, 40, false, 8), OPTIONS.withDataBlockHashIndex(false));
        byte[] file = readAll(fs, PATH);
        int footer = file.length - TableFormat.FOOTER_SIZE;
        ByteBuffer buffer = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(footer + TableFormat.FOOTER_VERSION, TableFormat.HASH_INDEX_FORMAT_VERSION);
        buffer.putInt(footer + TableFormat.FOOTER_CHECKSUM,
                Checksums.mask(Checksums.crc32c(file, footer, TableFormat.FOOTER_CHECKSUM)));
        overwrite(fs, PATH, file);
        CorruptionException e = assertThrows(CorruptionException.class, () -> open(fs, PATH, 11, null));
        assertEquals(PATH, e.file());
    }

    private static void assertAllFound(TableReader reader, List<Entry> entries) throws CorruptionException {
        LookupResult result = new LookupResult();
        for (Entry e : entries) {
            reader.get(segment(e.userKey()), InternalKey.MAX_SEQUENCE, result);
            assertEquals(LookupResult.Status.FOUND, result.status(), e.toString());
            assertArrayEquals(e.value(), array(result.value()), e.toString());
            // One below the entry's sequence: the key has no visible version there.
            reader.get(segment(e.userKey()), e.sequence() - 1, result);
            assertEquals(LookupResult.Status.NOT_FOUND, result.status(), e.toString());
        }
        byte[] absent = bytes("key-000100x");
        reader.get(segment(absent), InternalKey.MAX_SEQUENCE, result);
        assertEquals(LookupResult.Status.NOT_FOUND, result.status());
    }

    /** Recomputes a block's checksum over its (edited) contents and type byte. */
    private static void resealBlock(byte[] file, long offset, int size) {
        int crc = Checksums.mask(Checksums.crc32c(file, (int) offset, size + 1));
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt((int) offset + size + 1, crc);
    }

    private static long[] blockOffsets(MemFileSystem fs) throws Exception {
        TableReader reader = open(fs, PATH, 11, null);
        try {
            long[] offsets = new long[reader.dataBlockCount()];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = reader.dataBlockOffset(i);
            }
            assertTrue(offsets.length > 2, "test needs several blocks");
            return offsets;
        } finally {
            reader.release();
        }
    }

    private static int[] blockSizes(MemFileSystem fs) throws Exception {
        TableReader reader = open(fs, PATH, 11, null);
        try {
            int[] sizes = new int[reader.dataBlockCount()];
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = reader.dataBlockSize(i);
            }
            return sizes;
        } finally {
            reader.release();
        }
    }

    private static int u16(byte[] bytes, int at) {
        return (bytes[at] & 0xFF) | (bytes[at + 1] & 0xFF) << 8;
    }

    private static int u32(byte[] bytes, int at) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(at);
    }
}
