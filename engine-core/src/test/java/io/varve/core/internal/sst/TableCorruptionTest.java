package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import io.varve.base.Checksums;
import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.base.fs.MemFileSystem;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Damaged tables are reported as {@link CorruptionException} naming the file and the damaged block. */
class TableCorruptionTest {

    private static final Path PATH = DIR.resolve("000042.sst");
    private static final TableOptions OPTIONS = TableOptions.defaults().withBlockSize(512);

    /** Half compressible, half random values, so tables have both in-place and compressed blocks. */
    private static List<Entry> mixedEntries() {
        List<Entry> entries = new ArrayList<>(sampleEntries(60, 100, true, 1));
        List<Entry> random = sampleEntries(120, 100, false, 2);
        entries.addAll(random.subList(60, 120));
        return entries;
    }

    private record Layout(long[] offsets, int[] sizes, boolean[] compressed) {
    }

    private static Layout layout(MemFileSystem fs) throws Exception {
        TableReader reader = open(fs, PATH, 1, null);
        try {
            int n = reader.dataBlockCount();
            Layout layout = new Layout(new long[n], new int[n], new boolean[n]);
            byte[] file = readAll(fs, PATH);
            for (int i = 0; i < n; i++) {
                layout.offsets[i] = reader.dataBlockOffset(i);
                layout.sizes[i] = reader.dataBlockSize(i);
                layout.compressed[i] = file[(int) (layout.offsets[i] + layout.sizes[i])]
                        == TableFormat.COMPRESSION_LZ4;
            }
            return layout;
        } finally {
            reader.release();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void flippedByteInEachDataBlockIsReportedAtThatBlock(boolean withCache) throws Exception {
        MemFileSystem fs = memFs();
        List<Entry> entries = mixedEntries();
        write(fs, PATH, entries, OPTIONS);
        Layout layout = layout(fs);
        byte[] clean = readAll(fs, PATH);
        assertTrue(layout.offsets.length > 4, "test needs several blocks");
        boolean sawCompressed = false;
        boolean sawPlain = false;
        Random random = new Random(7);

        for (int block = 0; block < layout.offsets.length; block++) {
            sawCompressed |= layout.compressed[block];
            sawPlain |= !layout.compressed[block];
            // Anywhere in the stored block, trailer (type byte and checksum) included.
            int position = (int) layout.offsets[block]
                    + random.nextInt(layout.sizes[block] + TableFormat.BLOCK_TRAILER_SIZE);
            byte[] damaged = clean.clone();
            damaged[position] ^= (byte) (1 + random.nextInt(255));
            overwrite(fs, PATH, damaged);

            long expectedOffset = layout.offsets[block];
            TableReader reader = open(fs, PATH, 1, withCache ? new BlockCache(1 << 20, 2) : null);
            try {
                // A full scan returns a correct prefix, then fails at the damaged block.
                List<Entry> seen = new ArrayList<>();
                try (InternalIterator it = reader.newIterator()) {
                    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
                        for (it.seekToFirst(); it.valid(); it.next()) {
                            seen.add(current(it));
                        }
                    });
                    assertCorruptionAt(e.getCause(), expectedOffset);
                    assertFalse(it.valid());
                }
                assertEquals(entries.subList(0, seen.size()), seen, "no wrong data before the damage");

                // Backward too.
                try (InternalIterator it = reader.newIterator()) {
                    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
                        for (it.seekToLast(); it.valid(); it.prev()) {
                            current(it);
                        }
                    });
                    assertCorruptionAt(e.getCause(), expectedOffset);
                }

                // Point lookups: correct answers outside the block, corruption for keys inside it.
                int failures = 0;
                for (Entry e : entries) {
                    try {
                        LookupResult result = reader.get(segment(e.userKey()), Long.MAX_VALUE >>> 8);
                        assertEquals(LookupResult.Status.FOUND, result.status());
                        assertArrayEquals(e.value(), array(result.value()));
                    } catch (CorruptionException c) {
                        assertCorruptionAt(c, expectedOffset);
                        failures++;
                    }
                }
                assertTrue(failures > 0, "some key lives in the damaged block " + block);
            } finally {
                reader.release();
            }
        }
        assertTrue(sawCompressed && sawPlain, "both block kinds covered");
    }

    @Test
    void verifiedBlocksAreNotRecheckedButUnverifiedOnesAre() throws Exception {
        // Every load of an unverified block checks its checksum: a reader that never loaded block 1 fails
        // on it even after many loads of block 0.
        MemFileSystem fs = memFs();
        List<Entry> entries = sampleEntries(40, 100, false, 3);
        write(fs, PATH, entries, OPTIONS.withCompression(false));
        Layout layout = layout(fs);
        byte[] damaged = readAll(fs, PATH);
        damaged[(int) layout.offsets[1] + 3] ^= 0x10;
        overwrite(fs, PATH, damaged);
        TableReader reader = open(fs, PATH, 1, null);
        try {
            for (int i = 0; i < 3; i++) {
                assertEquals(LookupResult.Status.FOUND,
                        reader.get(segment(entries.getFirst().userKey()), 1 << 20).status());
            }
            CorruptionException e = assertThrows(CorruptionException.class, () -> {
                for (Entry entry : entries) {
                    reader.get(segment(entry.userKey()), 1 << 20);
                }
            });
            assertCorruptionAt(e, layout.offsets[1]);
        } finally {
            reader.release();
        }
    }

    @Test
    void everyFooterByteIsProtected() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, mixedEntries(), OPTIONS);
        byte[] clean = readAll(fs, PATH);
        int footerStart = clean.length - TableFormat.FOOTER_SIZE;
        for (int i = footerStart; i < clean.length; i++) {
            byte[] damaged = clean.clone();
            damaged[i] ^= 0x01;
            overwrite(fs, PATH, damaged);
            CorruptionException e = assertThrows(CorruptionException.class, () -> open(fs, PATH, 1, null),
                    "flip at footer byte " + (i - footerStart));
            assertEquals(PATH, e.file());
            assertTrue(e.offset() >= footerStart, e.getMessage());
        }
    }

    @Test
    void badMagicIsReportedAtTheMagic() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, mixedEntries(), OPTIONS);
        byte[] damaged = readAll(fs, PATH);
        damaged[damaged.length - 1] = 'X';
        overwrite(fs, PATH, damaged);
        CorruptionException e = assertThrows(CorruptionException.class, () -> open(fs, PATH, 1, null));
        assertEquals(damaged.length - 8, e.offset());
        assertTrue(e.getMessage().contains("magic"), e.getMessage());
    }

    @Test
    void unknownFormatVersionIsRejected() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, mixedEntries(), OPTIONS);
        byte[] file = readAll(fs, PATH);
        int footerStart = file.length - TableFormat.FOOTER_SIZE;
        ByteBuffer footer = ByteBuffer.wrap(file, footerStart, TableFormat.FOOTER_SIZE).slice()
                .order(ByteOrder.LITTLE_ENDIAN);
        footer.putInt(TableFormat.FOOTER_VERSION, TableFormat.FORMAT_VERSION + 1);
        // A well-formed footer of a future version: checksum recomputed, so only the version is wrong.
        footer.putInt(TableFormat.FOOTER_CHECKSUM,
                Checksums.mask(Checksums.crc32c(file, footerStart, TableFormat.FOOTER_CHECKSUM)));
        overwrite(fs, PATH, file);
        CorruptionException e = assertThrows(CorruptionException.class, () -> open(fs, PATH, 1, null));
        assertEquals(footerStart + TableFormat.FOOTER_VERSION, e.offset());
        assertTrue(e.getMessage().contains("version " + (TableFormat.FORMAT_VERSION + 1)), e.getMessage());
    }

    @Test
    void truncatedFilesAreRejectedAtOpen() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, mixedEntries(), OPTIONS);
        byte[] clean = readAll(fs, PATH);
        Random random = new Random(11);
        List<Integer> lengths = new ArrayList<>(List.of(0, 1, 7, 63, 64, 65, clean.length - 1, clean.length - 8,
                clean.length - 64, clean.length - 65));
        for (int i = 0; i < 30; i++) {
            lengths.add(random.nextInt(clean.length));
        }
        for (int length : lengths) {
            overwrite(fs, PATH, Arrays.copyOf(clean, length));
            CorruptionException e = assertThrows(CorruptionException.class, () -> open(fs, PATH, 1, null),
                    "truncated to " + length);
            assertEquals(PATH, e.file());
        }
    }

    @Test
    void damagedMetadataBlocksAreReportedAtOpenWithTheirOffset() throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, mixedEntries(), OPTIONS);
        byte[] clean = readAll(fs, PATH);
        ByteBuffer footer = ByteBuffer.wrap(clean, clean.length - TableFormat.FOOTER_SIZE,
                TableFormat.FOOTER_SIZE).slice().order(ByteOrder.LITTLE_ENDIAN);
        long[][] handles = {
                {footer.getLong(TableFormat.FOOTER_INDEX_OFFSET), footer.getLong(TableFormat.FOOTER_INDEX_SIZE)},
                {footer.getLong(TableFormat.FOOTER_FILTER_OFFSET), footer.getLong(TableFormat.FOOTER_FILTER_SIZE)},
                {footer.getLong(TableFormat.FOOTER_PROPERTIES_OFFSET),
                        footer.getLong(TableFormat.FOOTER_PROPERTIES_SIZE)},
        };
        for (long[] handle : handles) {
            assertTrue(handle[1] > 0);
            for (long position : new long[] {handle[0], handle[0] + handle[1] / 2, handle[0] + handle[1],
                    handle[0] + handle[1] + 4}) {
                byte[] damaged = clean.clone();
                damaged[(int) position] ^= 0x40;
                overwrite(fs, PATH, damaged);
                CorruptionException e = assertThrows(CorruptionException.class, () -> open(fs, PATH, 1, null));
                assertCorruptionAt(e, handle[0]);
            }
        }
    }

    static void assertCorruptionAt(Throwable t, long offset) {
        CorruptionException e = assertInstanceOf(CorruptionException.class, t);
        assertEquals(PATH, e.file(), e.getMessage());
        assertEquals(offset, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains(PATH.toString()), e.getMessage());
    }
}
