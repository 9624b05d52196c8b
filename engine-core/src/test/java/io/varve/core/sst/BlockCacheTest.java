package io.varve.core.sst;

import static io.varve.core.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.base.InternalIterator;
import io.varve.core.fs.MemFileSystem;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BlockCacheTest {

    /** A valid block whose contents are exactly {@code size} bytes (size >= 16). */
    private static Block blockOfSize(int size) throws Exception {
        BlockBuilder builder = new BlockBuilder(1, size);
        byte[] key = new byte[8];
        // shared, key length, value length varints (1 byte each while value < 128, else 2) + key + restarts.
        int overhead = 3 + key.length + 8;
        int valueLength = size - overhead;
        if (valueLength >= 128) {
            valueLength--;
        }
        builder.add(key, key.length, new byte[valueLength], valueLength);
        ByteBuilder contents = builder.finish();
        assertEquals(size, contents.size());
        return Block.parse(MemorySegment.ofArray(contents.toArray()), Path.of("t"), 0);
    }

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
    void evictsTheLeastRecentlyUsedBlockWhenFull() throws Exception {
        BlockCache cache = new BlockCache(3 * charge(200), 1);
        cache.put(1, 0, blockOfSize(200));
        cache.put(1, 1, blockOfSize(200));
        cache.put(1, 2, blockOfSize(200));
        assertNotNull(cache.get(1, 0)); // 0 is now the most recently used
        cache.put(1, 3, blockOfSize(200));
        assertNull(cache.get(1, 1), "the least recently used block went");
        assertNotNull(cache.get(1, 0));
        assertNotNull(cache.get(1, 2));
        assertNotNull(cache.get(1, 3));
        assertEquals(3 * charge(200), cache.usedBytes());
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
        Block[] blocks = {blockOfSize(100), blockOfSize(64), blockOfSize(150)};
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
                        long file = random.nextInt(3);
                        long offset = random.nextInt(40);
                        if (cache.get(file, offset) == null) {
                            cache.put(file, offset, blocks[random.nextInt(blocks.length)]);
                        }
                        lookups.incrementAndGet();
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
