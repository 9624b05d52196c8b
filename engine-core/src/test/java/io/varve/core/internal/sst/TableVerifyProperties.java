package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import io.varve.base.Checksums;
import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.LookupResult;
import io.varve.base.fs.MemFileSystem;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link TableReader#verifyContents()} decodes entries on its own ({@link EntryCheck}), not through the
 * readers' cursor; these properties hold the two to the same format. Sound random tables pass. A table with
 * one byte of one data block changed, and that block's checksum recomputed (so only the entry walk can tell),
 * either fails the check or reads back as a sound table: a scan in strictly increasing order of exactly the
 * entries the properties count, each of which a point lookup finds (through the filter, when there is one).
 */
class TableVerifyProperties {

    private static final Path PATH = DIR.resolve("p.sst");

    @Provide
    Arbitrary<List<Entry>> tables() {
        // Few letters and short keys: many shared prefixes, and several versions of one user key.
        Arbitrary<String> keys = Arbitraries.strings().withChars("abc").ofMinLength(1).ofMaxLength(6);
        Arbitrary<Long> sequences = Arbitraries.longs().between(1, 50);
        Arbitrary<Boolean> deletes = Arbitraries.integers().between(0, 4).map(i -> i == 0);
        Arbitrary<String> values = Arbitraries.strings().alpha().ofMaxLength(40);
        return keys.list().ofMinSize(1).ofMaxSize(150).flatMap(userKeys -> sequences.list()
                .ofSize(userKeys.size()).flatMap(seqs -> deletes.list().ofSize(userKeys.size())
                        .flatMap(kinds -> values.list().ofSize(userKeys.size())
                                .map(vals -> sorted(userKeys, seqs, kinds, vals)))));
    }

    private static List<Entry> sorted(List<String> keys, List<Long> sequences, List<Boolean> deletes,
                                      List<String> values) {
        TreeMap<Entry, Entry> unique = new TreeMap<>(ORDER);
        for (int i = 0; i < keys.size(); i++) {
            Entry e = deletes.get(i) ? Entry.delete(keys.get(i), sequences.get(i))
                    : Entry.put(keys.get(i), sequences.get(i), values.get(i));
            unique.putIfAbsent(e, e);
        }
        return new ArrayList<>(unique.keySet());
    }

    private static TableOptions options(boolean compressed, int blockSize, int restartInterval, boolean filter) {
        return TableOptions.defaults().withCompression(compressed).withBlockSize(blockSize)
                .withRestartInterval(restartInterval).withBloomBitsPerKey(filter ? 10 : 0);
    }

    @Property(tries = 200)
    void soundTablesPass(@ForAll("tables") List<Entry> entries, @ForAll boolean compressed,
                         @ForAll @IntRange(min = 32, max = 2048) int blockSize,
                         @ForAll @IntRange(min = 1, max = 16) int restartInterval,
                         @ForAll boolean filter, @ForAll boolean hashIndex) throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries, options(compressed, blockSize, restartInterval, filter)
                .withDataBlockHashIndex(hashIndex));
        TableReader reader = open(fs, PATH, 1, null);
        try {
            reader.verifyContents();
            try (InternalIterator it = reader.newIterator()) {
                assertEquals(entries, scanForward(it));
            }
        } finally {
            reader.release();
        }
    }

    @Property(tries = 400)
    void aTableThatPassesReadsBackSound(@ForAll("tables") List<Entry> entries,
                                        @ForAll @IntRange(min = 32, max = 1024) int blockSize,
                                        @ForAll @IntRange(min = 1, max = 16) int restartInterval,
                                        @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int where,
                                        @ForAll @IntRange(min = 1, max = 255) int flip,
                                        @ForAll boolean filter) throws Exception {
        MemFileSystem fs = memFs();
        write(fs, PATH, entries, options(false, blockSize, restartInterval, filter));
        long offset;
        int size;
        TableReader sound = open(fs, PATH, 1, null);
        try {
            int block = where % sound.dataBlockCount();
            offset = sound.dataBlockOffset(block);
            size = sound.dataBlockSize(block);
        } finally {
            sound.release();
        }
        byte[] bytes = readAll(fs, PATH);
        bytes[(int) offset + (where / 7) % size] ^= (byte) flip;
        resealBlock(bytes, offset, size);
        overwrite(fs, PATH, bytes);

        TableReader changed = open(fs, PATH, 1, null);
        try {
            try {
                changed.verifyContents();
            } catch (CorruptionException refused) {
                assertEquals(PATH, refused.file());
                return;
            }
            List<Entry> scanned;
            try (InternalIterator it = changed.newIterator()) {
                scanned = scanForward(it);
            }
            assertEquals(changed.properties().entryCount(), scanned.size());
            for (int i = 1; i < scanned.size(); i++) {
                assertTrue(ORDER.compare(scanned.get(i - 1), scanned.get(i)) < 0, "entry " + i + " out of order");
            }
            for (int i = 0; i < scanned.size(); i++) {
                Entry e = scanned.get(i);
                if (i > 0 && Arrays.equals(scanned.get(i - 1).userKey(), e.userKey())) {
                    continue; // only the newest version of a user key is what a lookup returns
                }
                LookupResult found = changed.get(MemorySegment.ofArray(e.userKey()), InternalKey.MAX_SEQUENCE);
                LookupResult.Status expected = e.isPut() ? LookupResult.Status.FOUND
                        : e.isMerge() ? LookupResult.Status.MERGE : LookupResult.Status.DELETED;
                assertEquals(expected, found.status(),
                        "lookup of entry " + i);
                assertEquals(e.sequence(), found.sequence(), "lookup of entry " + i);
            }
        } finally {
            changed.release();
        }
    }

    /** Recomputes the checksum of the block stored at {@code offset}, so that only its contents are wrong. */
    static void resealBlock(byte[] file, long offset, int size) {
        int masked = Checksums.mask(Checksums.crc32c(file, (int) offset, size + 1));
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt((int) offset + size + 1, masked);
    }
}
