package io.varve.core.internal.sst;

import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.base.fs.DiskFileSystem;
import io.varve.base.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tables on the real file system, read through a real memory mapping. */
class TableDiskTest {

    @TempDir
    Path dir;

    @Test
    void aTableWrittenToDiskIsReadThroughAMapping() throws Exception {
        Path path = dir.resolve("000001.sst");
        List<Entry> entries = sampleEntries(3000, 120, false, 9);
        TableProperties written = write(DiskFileSystem.INSTANCE, path, entries,
                TableOptions.defaults().withCompression(false));
        assertEquals(Files.size(path), written.fileSize());

        TableReader reader = open(DiskFileSystem.INSTANCE, path, 1, null);
        try {
            try (InternalIterator it = reader.newIterator()) {
                assertEquals(entries, scanForward(it));
            }
            MemorySegment value = reader.get(segment(entries.get(1234).userKey()), InternalKey.MAX_SEQUENCE)
                    .value();
            assertArrayEquals(entries.get(1234).value(), array(value));
            assertTrue(value.isNative() && value.isMapped(), "uncompressed values are read in place");
        } finally {
            reader.release();
        }
        assertFalse(reader.referenceCount() > 0);
        Files.delete(path);
    }

    @Test
    void sstFileWriterWritesToDiskAndCompressedBlocksGoThroughTheCache() throws Exception {
        Path path = dir.resolve("bulk.sst");
        List<Entry> entries = sampleEntries(2000, 300, true, 4);
        try (SstFileWriter writer = new SstFileWriter(path, TableOptions.defaults())) {
            for (Entry e : entries) {
                writer.put(e.userKey(), e.value());
            }
            TableProperties properties = writer.finish();
            assertTrue(properties.compressedDataBlockCount() > 0);
            assertTrue(properties.fileSize() < properties.rawValueBytes() / 4, "compressible data shrinks");
        }
        BlockCache cache = new BlockCache(8 << 20, 4);
        TableReader reader = TableReader.open(DiskFileSystem.INSTANCE.openReadable(path), path, 2, cache, 77);
        try {
            for (Entry e : entries) {
                LookupResult result = reader.get(segment(e.userKey()), 77);
                assertArrayEquals(e.value(), array(result.value()));
                assertEquals(77, result.sequence());
                assertFalse(result.value().isNative(), "decompressed values live on the heap");
            }
            assertTrue(cache.hits() > cache.misses(), "point lookups reuse cached blocks");
        } finally {
            reader.release();
        }
    }

    /**
     * A block's stored checksum damaged on disk after the block's first load: a reader opened to verify every
     * load refuses the next load, while a default reader, which verified the block once, still decodes it (the
     * block's contents are intact). No block cache, so every lookup loads from the mapping, which shares the
     * file's pages.
     */
    @Test
    void aReaderVerifyingEveryLoadFindsDamageDoneAfterTheFirstLoad() throws Exception {
        Path path = dir.resolve("000003.sst");
        List<Entry> entries = sampleEntries(500, 200, true, 5);
        write(DiskFileSystem.INSTANCE, path, entries, TableOptions.defaults());
        byte[] firstKey = entries.getFirst().userKey();
        byte[] firstValue = entries.getFirst().value();
        TableReader verifying = TableReader.open(DiskFileSystem.INSTANCE.openReadable(path), path, 3, null,
                TableReader.NO_GLOBAL_SEQUENCE, true);
        TableReader once = TableReader.open(DiskFileSystem.INSTANCE.openReadable(path), path, 4, null,
                TableReader.NO_GLOBAL_SEQUENCE, false);
        try {
            assertArrayEquals(firstValue, array(verifying.get(segment(firstKey), InternalKey.MAX_SEQUENCE).value()));
            assertArrayEquals(firstValue, array(once.get(segment(firstKey), InternalKey.MAX_SEQUENCE).value()));
            long checksumAt = verifying.dataBlockOffset(0) + verifying.dataBlockSize(0) + 1;
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                channel.read(b, checksumAt);
                channel.write(ByteBuffer.wrap(new byte[] {(byte) (b.get(0) ^ 0x5A)}), checksumAt);
            }
            assertThrows(CorruptionException.class,
                    () -> verifying.get(segment(firstKey), InternalKey.MAX_SEQUENCE));
            assertArrayEquals(firstValue, array(once.get(segment(firstKey), InternalKey.MAX_SEQUENCE).value()),
                    "a reader that verified the block once does not verify it again");
        } finally {
            verifying.release();
            once.release();
        }
    }
}
