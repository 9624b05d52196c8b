package io.varve.core.sst;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A byte-bounded LRU cache of decompressed data blocks, shared by table readers, keyed by (file number,
 * block offset). Uncompressed blocks are never cached: readers use them in place from the file mapping,
 * which the OS page cache already keeps.
 *
 * <p>The cache is split into shards, each an access-ordered map behind its own lock, so concurrent readers
 * rarely contend. Each shard holds at most {@code capacity / shards} bytes; a block larger than that is not
 * cached. Cached blocks are heap arrays: evicting one while an iterator still reads it is safe, the garbage
 * collector frees it only when the last reference goes. Thread-safe.
 */
public final class BlockCache {

    /** Rough per-entry bookkeeping cost (map node, key, block object), charged on top of the bytes. */
    static final int ENTRY_OVERHEAD = 96;

    /**
     * A map key. Keys stored in a map are never changed; each shard also owns one mutable probe, set and
     * used only under the shard's lock, so that a lookup allocates nothing.
     */
    private static final class Key {
        long fileNumber;
        long blockOffset;

        Key(long fileNumber, long blockOffset) {
            this.fileNumber = fileNumber;
            this.blockOffset = blockOffset;
        }

        long fileNumber() {
            return fileNumber;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.fileNumber == fileNumber && k.blockOffset == blockOffset;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(fileNumber * 0x9E37_79B9_7F4A_7C15L + blockOffset);
        }
    }

    private static final class Shard {
        final ReentrantLock lock = new ReentrantLock();
        final LinkedHashMap<Key, Block> blocks = new LinkedHashMap<>(64, 0.75f, true);
        final Key probe = new Key(0, 0);
        final long capacity;
        long used;

        Shard(long capacity) {
            this.capacity = capacity;
        }
    }

    private final Shard[] shards;
    private final long capacityBytes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    public BlockCache(long capacityBytes, int shardCount) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("capacity must be >= 0: " + capacityBytes);
        }
        if (shardCount < 1 || shardCount > 1 << 16) {
            throw new IllegalArgumentException("shard count must be in [1, 65536]: " + shardCount);
        }
        this.capacityBytes = capacityBytes;
        this.shards = new Shard[shardCount];
        long perShard = capacityBytes / shardCount;
        for (int i = 0; i < shardCount; i++) {
            shards[i] = new Shard(perShard);
        }
    }

    /** The cached block, or null (counted as a miss). */
    Block get(long fileNumber, long blockOffset) {
        Shard shard = shardFor(fileNumber, blockOffset);
        Block block;
        shard.lock.lock();
        try {
            shard.probe.fileNumber = fileNumber;
            shard.probe.blockOffset = blockOffset;
            block = shard.blocks.get(shard.probe);
        } finally {
            shard.lock.unlock();
        }
        (block == null ? misses : hits).increment();
        return block;
    }

    /** Caches {@code block}, evicting least recently used blocks of the same shard to make room. */
    void put(long fileNumber, long blockOffset, Block block) {
        long charge = charge(block);
        Key key = new Key(fileNumber, blockOffset);
        Shard shard = shardFor(fileNumber, blockOffset);
        if (charge > shard.capacity) {
            return;
        }
        shard.lock.lock();
        try {
            Block previous = shard.blocks.put(key, block);
            if (previous != null) {
                shard.used -= charge(previous);
            }
            shard.used += charge;
            Iterator<Map.Entry<Key, Block>> eldest = shard.blocks.entrySet().iterator();
            while (shard.used > shard.capacity && eldest.hasNext()) {
                Map.Entry<Key, Block> victim = eldest.next();
                shard.used -= charge(victim.getValue());
                eldest.remove();
            }
        } finally {
            shard.lock.unlock();
        }
    }

    /** Drops every cached block of {@code fileNumber}, e.g. when the table file is deleted. */
    public void evictFile(long fileNumber) {
        for (Shard shard : shards) {
            shard.lock.lock();
            try {
                Iterator<Map.Entry<Key, Block>> entries = shard.blocks.entrySet().iterator();
                while (entries.hasNext()) {
                    Map.Entry<Key, Block> entry = entries.next();
                    if (entry.getKey().fileNumber() == fileNumber) {
                        shard.used -= charge(entry.getValue());
                        entries.remove();
                    }
                }
            } finally {
                shard.lock.unlock();
            }
        }
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    /** Bytes currently charged, overhead included. */
    public long usedBytes() {
        long total = 0;
        for (Shard shard : shards) {
            shard.lock.lock();
            try {
                total += shard.used;
            } finally {
                shard.lock.unlock();
            }
        }
        return total;
    }

    public int blockCount() {
        int total = 0;
        for (Shard shard : shards) {
            shard.lock.lock();
            try {
                total += shard.blocks.size();
            } finally {
                shard.lock.unlock();
            }
        }
        return total;
    }

    private static long charge(Block block) {
        return block.byteSize() + ENTRY_OVERHEAD;
    }

    private Shard shardFor(long fileNumber, long blockOffset) {
        long h = fileNumber * 0x9E37_79B9_7F4A_7C15L + blockOffset;
        h ^= h >>> 29;
        h *= 0xBF58_476D_1CE4_E5B9L;
        h ^= h >>> 32;
        return shards[(int) Long.remainderUnsigned(h, shards.length)];
    }
}
