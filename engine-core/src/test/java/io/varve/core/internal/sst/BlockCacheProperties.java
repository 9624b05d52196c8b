package io.varve.core.internal.sst;

import static io.varve.core.internal.sst.TableFixtures.blockOfSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Model-based check of the block cache against a map of the last block put per key. The capacities are a few
 * blocks per shard and keys are few, so puts evict, replace and get skipped (too large) all the time.
 *
 * <p>Probing every key after a step is the only way to see what the cache holds, but each probe also marks
 * what it finds, which leaves the hand nothing but fully marked clocks to sweep. So half of the runs probe
 * after every step and the other half only at the end, letting the sequence's own gets leave mixed marks.
 */
class BlockCacheProperties {

    private static final int FILES = 3;
    private static final int OFFSETS = 4;

    sealed interface Op permits Put, Get, EvictFile {
    }

    record Put(int file, int offset, int size) implements Op {
    }

    record Get(int file, int offset) implements Op {
    }

    record EvictFile(int file) implements Op {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> files = Arbitraries.integers().between(1, FILES);
        Arbitrary<Integer> offsets = Arbitraries.integers().between(0, OFFSETS - 1);
        Arbitrary<Op> put = Combinators.combine(files, offsets, Arbitraries.integers().between(19, 600))
                .as(Put::new);
        Arbitrary<Op> get = Combinators.combine(files, offsets).as(Get::new);
        Arbitrary<Op> evict = files.map(EvictFile::new);
        return Arbitraries.frequencyOf(Tuple.of(5, put), Tuple.of(5, get), Tuple.of(1, evict)).list().ofMaxSize(80);
    }

    @Property(tries = 500)
    void returnsOnlyTheLastBlockPutAndChargesExactlyWhatItHolds(@ForAll("ops") List<Op> ops,
            @ForAll @IntRange(min = 1, max = 4) int shards,
            @ForAll @IntRange(min = 0, max = 2000) int bytesPerShard,
            @ForAll @IntRange(min = 0, max = 3) int remainder,
            @ForAll boolean probeEveryStep) throws IOException {
        long capacity = (long) shards * bytesPerShard + remainder % shards;
        Model model = new Model(new BlockCache(capacity, shards), bytesPerShard);
        for (Op op : ops) {
            Long mustHit = model.apply(op);
            assertTrue(model.cache.usedBytes() <= capacity, "over capacity after " + op);
            model.checkBoundedByOracle(op);
            if (probeEveryStep) {
                model.probeAll(op, mustHit);
            }
            model.checkCounts(op);
        }
        model.probeAll(null, null);
        model.checkCounts(null);
    }

    /** The oracle: for each key, the block a get may return (or nothing), plus the lookups made so far. */
    private static final class Model {
        final BlockCache cache;
        final long shardCapacity;
        final Map<Long, Block> cached = new HashMap<>();
        long gets;
        long hits;

        Model(BlockCache cache, long shardCapacity) {
            this.cache = cache;
            this.shardCapacity = shardCapacity;
        }

        /** Applies {@code op}; returns the key that must now be cached, if any. */
        Long apply(Op op) throws IOException {
            switch (op) {
                case Put(int file, int offset, int size) -> {
                    long usedBefore = cache.usedBytes();
                    int countBefore = cache.blockCount();
                    Block block = blockOfSize(size);
                    cache.put(file, offset, block);
                    if (charge(block) > shardCapacity) {
                        assertEquals(usedBefore, cache.usedBytes(), "a block too large for a shard changes nothing");
                        assertEquals(countBefore, cache.blockCount());
                        return null;
                    }
                    cached.put(key(file, offset), block);
                    return key(file, offset);
                }
                case Get(int file, int offset) -> lookUp(file, offset, op);
                case EvictFile(int file) -> {
                    cache.evictFile(file);
                    cached.keySet().removeIf(key -> key / OFFSETS == file);
                }
            }
            return null;
        }

        /**
         * Looks up every key: each answer is null or the oracle's block, {@code mustHit} is found, and the
         * charges of what is found add up to the cache's accounting.
         */
        void probeAll(Op after, Long mustHit) {
            long charged = 0;
            int found = 0;
            for (int file = 1; file <= FILES; file++) {
                for (int offset = 0; offset < OFFSETS; offset++) {
                    Block block = lookUp(file, offset, after);
                    if (block != null) {
                        charged += charge(block);
                        found++;
                    } else if (mustHit != null && mustHit == key(file, offset)) {
                        throw new AssertionError("the block just put is not cached, after " + after);
                    }
                }
            }
            assertEquals(charged, cache.usedBytes(), "charges of what lookups find, after " + after);
            assertEquals(found, cache.blockCount(), "blocks lookups find, after " + after);
        }

        Block lookUp(int file, int offset, Op after) {
            Block block = cache.get(file, offset);
            gets++;
            Block expected = cached.get(key(file, offset));
            if (expected == null) {
                assertNull(block, "key " + file + "/" + offset + " hits with nothing put since its eviction, after "
                        + after);
            } else if (block != null) {
                assertSame(expected, block, "key " + file + "/" + offset + " returns another block, after " + after);
            }
            if (block != null) {
                hits++;
            }
            return block;
        }

        /** Whatever the cache holds is the oracle's block for its key, so it holds no more than the oracle. */
        void checkBoundedByOracle(Op after) {
            long charges = cached.values().stream().mapToLong(Model::charge).sum();
            assertTrue(cache.usedBytes() <= charges, "more bytes than the oracle's blocks, after " + after);
            assertTrue(cache.blockCount() <= cached.size(), "more blocks than the oracle's, after " + after);
        }

        void checkCounts(Op after) {
            assertEquals(hits, cache.hits(), "hits after " + after);
            assertEquals(gets - hits, cache.misses(), "misses after " + after);
        }

        private static long key(int file, int offset) {
            return (long) file * OFFSETS + offset;
        }

        private static long charge(Block block) {
            return block.byteSize() + BlockCache.ENTRY_OVERHEAD;
        }
    }
}
