package io.varve.core.internal.sst;

import org.junit.jupiter.api.Test;

import static io.varve.core.internal.sst.TableFixtures.blockOfSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Views of one cache, one per database: equal file numbers never meet, and a view's eviction is its own. */
class SharedBlockCacheViewTest {

    @Test
    void viewsWithEqualFileNumbersKeepTheirOwnBlocks() throws Exception {
        BlockCache shared = new BlockCache(1 << 20, 4);
        BlockCache first = shared.forDatabase();
        BlockCache second = shared.forDatabase();
        Block firstBlock = blockOfSize(100);
        Block secondBlock = blockOfSize(100);

        first.put(7, 0, firstBlock);
        assertNull(second.get(7, 0), "the other database's file 7 is not this one's");
        second.put(7, 0, secondBlock);

        assertSame(firstBlock, first.get(7, 0));
        assertSame(secondBlock, second.get(7, 0));
        assertEquals(2, shared.blockCount(), "both in the one cache");
        assertEquals(1, first.hits());
        assertEquals(1, second.hits());
        assertEquals(1, second.misses());
        assertEquals(2, shared.hits(), "the cache counts every view's lookups");
        assertEquals(1, shared.misses());
    }

    @Test
    void evictingAViewsFileOrAllItsBlocksLeavesTheOtherViewsBlocks() throws Exception {
        BlockCache shared = new BlockCache(1 << 20, 4);
        BlockCache first = shared.forDatabase();
        BlockCache second = shared.forDatabase();
        for (long file = 1; file <= 3; file++) {
            first.put(file, 0, blockOfSize(50));
            second.put(file, 0, blockOfSize(50));
        }

        first.evictFile(2);
        assertNull(first.get(2, 0));
        assertEquals(5, shared.blockCount());
        assertEquals(50, second.get(2, 0).byteSize(), "the other database's file 2 stays");

        first.evictOwn();
        assertNull(first.get(1, 0));
        assertNull(first.get(3, 0));
        assertEquals(3, shared.blockCount(), "only the closed database's blocks left");
        assertEquals(3 * (50 + BlockCache.ENTRY_OVERHEAD), shared.usedBytes());
    }

    @Test
    void viewsAreMadeFromTheCacheItself() {
        BlockCache view = new BlockCache(1 << 20, 4).forDatabase();
        assertThrows(IllegalStateException.class, view::forDatabase);
    }
}
