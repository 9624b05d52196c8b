package io.varve.core.internal.sst;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.LookupResult;
import io.varve.core.sst.TableOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocks a scan steps into are decoded into the iterator's own buffer when the cache has no room for them:
 * two iterators stepping in turn each keep their own entries, a full cache keeps exactly what it held (and
 * what it held still reads right), and a cache with room is filled by the scan as before.
 */
class TableIteratorScratchTest {

    private static final int ENTRIES = 2000;

    private final List<Entry> entries = sampleEntries(ENTRIES, 100, true, 7);

    @Test
    void twoIteratorsSteppingInTurnEachSeeTheirOwnBlocks() throws Exception {
        TableReader reader = table(new BlockCache(0, 1));
        try (InternalIterator ahead = reader.newIterator(); InternalIterator behind = reader.newIterator()) {
            ahead.seekToFirst();
            behind.seekToLast();
            for (int i = 0; i < ENTRIES; i++) {
                assertEquals(entries.get(i), current(ahead), "forward entry " + i);
                assertEquals(entries.get(ENTRIES - 1 - i), current(behind), "backward entry " + i);
                ahead.next();
                behind.prev();
            }
            assertTrue(!ahead.valid() && !behind.valid());
        } finally {
            reader.release();
        }
    }

    @Test
    void aScanLeavesAFullCacheAsItWas() throws Exception {
        BlockCache cache = new BlockCache(20_000, 1);
        TableReader reader = table(cache);
        try {
            LookupResult result = new LookupResult();
            // The first and last blocks (where the scans below seek), then another file's block that takes
            // exactly the room left.
            reader.get(segment(entries.get(0).userKey()), InternalKey.MAX_SEQUENCE, result);
            reader.get(segment(entries.get(ENTRIES - 1).userKey()), InternalKey.MAX_SEQUENCE, result);
            assertEquals(2, cache.blockCount());
            int filler = (int) (cache.capacityBytes() - cache.usedBytes() - BlockCache.ENTRY_OVERHEAD);
            cache.put(99, 0, blockOfSize(filler));
            assertEquals(cache.capacityBytes(), cache.usedBytes(), "the cache is full");
            try (InternalIterator it = reader.newIterator()) {
                assertEquals(entries, scanForward(it));
                assertEquals(entries.reversed(), scanBackward(it));
            }
            assertEquals(3, cache.blockCount(), "a scan must not evict or add blocks when the cache is full");
            assertEquals(cache.capacityBytes(), cache.usedBytes());
            for (Entry e : entries) {
                reader.get(segment(e.userKey()), InternalKey.MAX_SEQUENCE, result);
                assertArrayEquals(e.value(), array(result.value()), "value of " + new String(e.userKey()));
            }
        } finally {
            reader.release();
        }
    }

    @Test
    void aScanFillsACacheWithRoom() throws Exception {
        BlockCache cache = new BlockCache(64 << 20, 1);
        TableReader reader = table(cache);
        try (InternalIterator it = reader.newIterator()) {
            assertEquals(entries, scanForward(it));
            assertEquals(reader.properties().compressedDataBlockCount(), cache.blockCount());
        } finally {
            reader.release();
        }
    }

    private TableReader table(BlockCache cache) throws Exception {
        MemFileSystem fs = memFs();
        Path path = DIR.resolve("000011.sst");
        TableProperties properties = write(fs, path, entries,
                TableOptions.defaults().withBlockSize(4096).withCompression(true));
        assertTrue(properties.compressedDataBlockCount() > 10, "the table needs many compressed blocks");
        return open(fs, path, 11, cache);
    }
}
