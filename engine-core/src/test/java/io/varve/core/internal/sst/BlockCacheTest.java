package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.base.fs.MemFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BlockCacheTest {

    private static long charge(int size) {
        return size + BlockCache.ENTRY_OVERHEAD;
    }

    @Test
    void countsHitsAndMisses() throws Exception {
        BlockCache cache = new BlockCache(1 << 20, 4);
        Block block = blockOfSize(100);
        assertNull(cache.get(1, 0));
        cache.put(1, 0, block);
        assertSame(block, cache.get(1, 0));
        assertSame(block, cache.get(1, 0));
        assertNull(cache.get(2, 0), "keyed by file number too");
        assertEquals(2, cache.hits());
        assertEquals(2, cache.misses());
    }

    @Test
    void evictsBlocksNotReadSinceTheLastSweepFirst() throws Exception {
        BlockCache cache = new BlockCache(3 * charge(200), 1);
        cache.put(1, 0, blockOfSize(200));
        cache.put(1, 1, blockOfSize(200));
        cache.put(1, 2, blockOfSize(200));
        assertNotNull(cache.get(1, 0)); // 0 is marked; 1 and 2 are not
        cache.put(1, 3, blockOfSize(200));
        assertNull(cache.get(1, 1), "the oldest unread block went; the older but read one got a second chance");
        assertEquals(3 * charge(200), cache.usedBytes());

        // The sweep cleared 0's mark; now 2 and 0 are read, and the newest block, 3, is not.
        assertNotNull(cache.get(1, 2));
        assertNotNull(cache.get(1, 0));
        cache.put(1, 4, blockOfSize(200));
        assertNull(cache.get(1, 3), "a block never read goes before read ones, however new");
        assertNotNull(cache.get(1, 0));
        assertNotNull(cache.get(1, 2));
        assertNotNull(cache.get(1, 4));
        assertEquals(3, cache.blockCount());
    }

    @Test
    void whenEveryBlockWasReadTheHandEvictsInInsertionOrder() throws Exception {
        BlockCache cache = new BlockCache(3 * charge(200), 1);
        for (int offset = 0; offset < 3; offset++) {
            cache.put(1, offset, blockOfSize(200));
        }
        for (int offset = 2; offset >= 0; offset--) {
            assertNotNull(cache.get(1, offset));
        }
        cache.put(1, 3, blockOfSize(200));
        assertNull(cache.get(1, 0), "one pass cleared every mark, then the hand took the first block");
        assertNotNull(cache.get(1, 1));
        assertNotNull(cache.get(1, 2));
        assertNotNull(cache.get(1, 3));
    }

    @Test
    void aReplacedBlocksOldSlotNeverEvictsItsSuccessor() throws Exception {
        BlockCache cache = new BlockCache(3 * charge(200), 1);
        cache.put(1, 0, blockOfSize(200));
        cache.put(1, 1, blockOfSize(200));
        Block replacement = blockOfSize(200);
        cache.put(1, 0, replacement); // the hand meets 0's old slot first
        cache.put(1, 2, blockOfSize(200));
        cache.put(1, 3, blockOfSize(200));
        assertSame(replacement, cache.get(1, 0));
        assertNull(cache.get(1, 1));
        assertEquals(3, cache.blockCount());
        assertEquals(3 * charge(200), cache.usedBytes());
    }

    @Test
    void aBlockMayNeedSeveralEvictions() throws Exception {
        BlockCache cache = new BlockCache(4 * charge(100), 1);
        for (int offset = 0; offset < 4; offset++) {
            cache.put(1, offset, blockOfSize(100));
        }
        assertNotNull(cache.get(1, 0));
        Block big = blockOfSize(3 * 100 + 2 * BlockCache.ENTRY_OVERHEAD);
        cache.put(2, 0, big);
        assertSame(big, cache.get(2, 0));
        assertNotNull(cache.get(1, 0), "the read block survived");
        assertEquals(2, cache.blockCount());
        assertEquals(charge(100) + big.byteSize() + BlockCache.ENTRY_OVERHEAD, cache.usedBytes());
    }

    @Test
    void replacingAnEntryDoesNotDoubleCount() throws Exception {
        BlockCache cache = new BlockCache(1 << 20, 1);
        cache.put(1, 0, blockOfSize(200));
        cache.put(1, 0, blockOfSize(300));
        assertEquals(charge(300), cache.usedBytes());
        assertEquals(1, cache.blockCount());
    }

    @Test
    void blocksLargerThanAShardAreNotCached() throws Exception {
        BlockCache cache = new BlockCache(1000, 2);
        cache.put(1, 0, blockOfSize(600));
        assertNull(cache.get(1, 0));
        assertEquals(0, cache.usedBytes());
    }

    @Test
    void evictFileDropsOnlyThatFile() throws Exception {
        BlockCache cache = new BlockCache(1 << 20, 4);
        for (int offset = 0; offset < 10; offset++) {
            cache.put(1, offset, blockOfSize(50));
            cache.put(2, offset, blockOfSize(50));
        }
        cache.evictFile(1);
        assertEquals(10, cache.blockCount());
        assertEquals(10 * charge(50), cache.usedBytes());
        for (int offset = 0; offset < 10; offset++) {
            assertNull(cache.get(1, offset));
            assertNotNull(cache.get(2, offset));
        }
    }

    @Test
    void rejectsBadConfiguration() {
        assertThrows(IllegalArgumentException.class, () -> new BlockCache(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> new BlockCache(100, 0));
    }

    @Test
    void concurrentUseStaysWithinCapacityAndCountsEveryLookup() throws Exception {
        long capacity = 20 * charge(100);
        BlockCache cache = new BlockCache(capacity, 2);
        int files = 3;
        int offsets = 40;
        int[] sizes = {100, 64, 150};
        // Every key has its own blocks, so a lookup that returned another key's block would be caught.
        Block[][][] blocks = new Block[files][offsets][sizes.length];
        for (int f = 0; f < files; f++) {
            for (int o = 0; o < offsets; o++) {
                for (int v = 0; v < sizes.length; v++) {
                    blocks[f][o][v] = blockOfSize(sizes[v]);
                }
            }
        }
        int threads = 4;
        int operations = 20_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicLong lookups = new AtomicLong();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            Thread worker = new Thread(() -> {
                try {
                    Random random = new Random(seed);
                    start.await();
                    for (int i = 0; i < operations; i++) {
                        int file = random.nextInt(files);
                        int offset = random.nextInt(offsets);
                        Block found = cache.get(file, offset);
                        lookups.incrementAndGet();
                        if (found == null) {
                            cache.put(file, offset, blocks[file][offset][random.nextInt(sizes.length)]);
                        } else if (!List.of(blocks[file][offset]).contains(found)) {
                            throw new AssertionError("another key's block for " + file + "/" + offset);
                        }
                        if (random.nextInt(1000) == 0) {
                            cache.evictFile(random.nextInt(files));
                        }
                        if (cache.usedBytes() > capacity) {
                            throw new AssertionError("over capacity: " + cache.usedBytes());
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        assertEquals(List.of(), failures);
        assertEquals(lookups.get(), cache.hits() + cache.misses());
        assertTrue(cache.hits() > 0 && cache.misses() > 0);

        // At rest, the accounting matches exactly what lookups can still find.
        long charged = 0;
        int found = 0;
        for (int f = 0; f < files; f++) {
            for (int o = 0; o < offsets; o++) {
                Block block = cache.get(f, o);
                if (block != null) {
                    charged += block.byteSize() + BlockCache.ENTRY_OVERHEAD;
                    found++;
                }
            }
        }
        assertEquals(charged, cache.usedBytes());
        assertEquals(found, cache.blockCount());
        assertTrue(cache.usedBytes() <= capacity);
    }

    /** Through a table reader: compressed blocks are cached once, uncompressed ones never. */
    @Test
    void readersCacheCompressedBlocksOnly() throws Exception {
        MemFileSystem fs = memFs();
        Path path = DIR.resolve("000011.sst");
        List<Entry> entries = new ArrayList<>(sampleEntries(400, 100, true, 1));
        List<Entry> random = sampleEntries(800, 100, false, 2);
        entries.addAll(random.subList(400, 800));
        TableProperties properties = write(fs, path, entries, TableOptions.defaults().withBlockSize(1024));
        long compressed = properties.compressedDataBlockCount();
        assertTrue(compressed > 0 && compressed < properties.dataBlockCount());

        BlockCache cache = new BlockCache(16 << 20, 4);
        TableReader reader = open(fs, path, 11, cache);
        try {
            try (InternalIterator it = reader.newIterator()) {
                assertEquals(entries, scanForward(it));
                assertEquals(0, cache.hits());
                assertEquals(compressed, cache.misses());
                assertEquals(compressed, cache.blockCount());
                assertEquals(entries, scanForward(it));
                assertEquals(compressed, cache.hits(), "second scan served from the cache");
                assertEquals(compressed, cache.misses());
            }
            // A second reader of another file does not see this file's blocks.
            TableReader other = open(fs, path, 12, cache);
            try (InternalIterator it = other.newIterator()) {
                scanForward(it);
            } finally {
                other.release();
            }
            assertEquals(2 * compressed, cache.misses());
            cache.evictFile(11);
            assertEquals(compressed, cache.blockCount());
        } finally {
            reader.release();
        }
    }
}
