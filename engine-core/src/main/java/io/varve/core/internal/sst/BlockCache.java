package io.varve.core.internal.sst;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A byte-bounded cache of decompressed data blocks, shared by table readers, keyed by (file number, block
 * offset). Uncompressed blocks are never cached: readers use them in place from the file mapping, which the
 * OS page cache already keeps.
 *
 * <p><b>Design.</b> The cache is split into {@link ClockShard shards} by a hash of the key; each holds at most
 * {@code capacity / shards} bytes, and a block larger than that is not cached. A shard finds blocks through a
 * {@code ConcurrentHashMap} and evicts by CLOCK: every entry has a "referenced" bit that hits set, and when a
 * put needs room the clock hand walks the entries in insertion order, clearing set bits (a second chance: the
 * entry goes to the back) and evicting the first entry whose bit is already clear. Puts, evictions and
 * {@link #evictFile} take the shard's lock; lookups take none.
 *
 * <p><b>Why hits need no lock.</b> A hit only reads the map and, if the entry's bit is clear, sets it. Under
 * strict LRU every hit had to move its entry in a shared list, i.e. write under the lock; here a hit on a hot
 * block whose bit is already set writes nothing at all, so two threads hitting the same blocks do not
 * bounce cache lines between cores. Apart from that bit an entry never changes once put, and it is published
 * through the map, so a reader that finds one sees its block fully built. The lookup key is a per-thread
 * probe, so a lookup allocates nothing.
 *
 * <p><b>What CLOCK gives up.</b> CLOCK approximates LRU with one bit of history: it cannot tell a block read
 * once since the last sweep from one read a thousand times, nor order two referenced blocks by recency, so a
 * victim is "not read since the hand last passed", not "least recently read". In exchange a block that is
 * put and never read again goes at the next sweep, before any block that was read (a scan does not flush
 * the hot set). A lookup may also race with eviction and return a block that is being evicted at that
 * moment. That is safe: cached blocks are heap objects, valid as long as anyone references them; the garbage
 * collector frees one only when the last reader lets go, so an iterator keeps using its block either way.
 *
 * <p><b>Invariants</b> (per shard, whenever its lock is free): every block {@code get} can return is in the map
 * once and on the clock once; {@link #usedBytes()} is the sum of their charges and never above the capacity,
 * also as seen concurrently; a key put again replaces the old entry, whose charge is released at once and
 * whose stale clock slot is skipped, never mistaken for the new entry. Hit and miss counts are exact. Thread-safe.
 *
 * <p><b>Sharing.</b> One cache can serve several databases, so that a process bounds all their block memory
 * with one figure. Each database reads through its own {@link #forDatabase() view}: the views share the
 * shards (and so the capacity and the eviction), and each adds its owner id, unique within the cache, to
 * every key, because file numbers repeat across databases. A view counts its own hits and misses, and the
 * cache the sum of all. {@link #evictOwn()} drops one view's blocks when its database closes; blocks of the
 * other databases stay.
 */
public final class BlockCache {

    /** Rough per-entry bookkeeping cost (map node, entry, clock slot, block object), charged on top of the bytes. */
    static final int ENTRY_OVERHEAD = 96;

    private final ClockShard[] shards;
    private final long capacityBytes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    /** The cache whose shards this view uses; this for a cache created by the constructor. */
    private final BlockCache root;
    /** The id this instance's keys carry; 0 for the root itself. */
    private final long owner;
    /** The root's source of view ids. */
    private final AtomicLong owners;

    public BlockCache(long capacityBytes, int shardCount) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("capacity must be >= 0: " + capacityBytes);
        }
        if (shardCount < 1 || shardCount > 1 << 16) {
            throw new IllegalArgumentException("shard count must be in [1, 65536]: " + shardCount);
        }
        this.capacityBytes = capacityBytes;
        this.shards = new ClockShard[shardCount];
        long perShard = capacityBytes / shardCount;
        for (int i = 0; i < shardCount; i++) {
            shards[i] = new ClockShard(perShard);
        }
        this.root = this;
        this.owner = 0;
        this.owners = new AtomicLong();
    }

    private BlockCache(BlockCache root, long owner) {
        this.shards = root.shards;
        this.capacityBytes = root.capacityBytes;
        this.root = root;
        this.owner = owner;
        this.owners = root.owners;
    }

    /**
     * A view of this cache for one more database: same blocks budget, keys of its own. Call on the cache
     * itself, not on a view.
     */
    public BlockCache forDatabase() {
        if (root != this) {
            throw new IllegalStateException("views are made from the shared cache, not from another view");
        }
        return new BlockCache(this, owners.incrementAndGet());
    }

    /** The cached block, or null (counted as a miss). */
    Block get(long fileNumber, long blockOffset) {
        Block block = shardFor(fileNumber, blockOffset).get(owner, fileNumber, blockOffset);
        if (block == null) {
            recordMiss();
        } else {
            recordHit();
        }
        return block;
    }

    /**
     * The cached block, or null. Counts a hit, but not a miss: for a reader that looks up before it knows
     * whether the block is compressed (uncompressed blocks are never cached, so looking one up is no miss);
     * it calls {@link #recordMiss()} once it knows.
     */
    Block find(long fileNumber, long blockOffset) {
        Block block = shardFor(fileNumber, blockOffset).get(owner, fileNumber, blockOffset);
        if (block != null) {
            recordHit();
        }
        return block;
    }

    /** Counts a miss of a {@link #find} whose block turned out to be cacheable. */
    void recordMiss() {
        misses.increment();
        if (root != this) {
            root.misses.increment();
        }
    }

    private void recordHit() {
        hits.increment();
        if (root != this) {
            root.hits.increment();
        }
    }

    /**
     * Caches {@code block}, replacing any block cached under the same key and evicting blocks of the same
     * shard not read since the clock hand last passed them. A block larger than a shard leaves the cache as it was.
     */
    void put(long fileNumber, long blockOffset, Block block) {
        long charge = charge(block);
        ClockShard shard = shardFor(fileNumber, blockOffset);
        if (charge <= shard.capacity()) {
            shard.put(owner, fileNumber, blockOffset, block, charge);
        }
    }

    /**
     * Whether a block of {@code contentBytes} under this key would fit its shard now without evicting
     * anything. A snapshot, not a promise: a concurrent put may take the room first.
     */
    boolean hasRoomFor(long fileNumber, long blockOffset, long contentBytes) {
        ClockShard shard = shardFor(fileNumber, blockOffset);
        return shard.usedBytes() + contentBytes + ENTRY_OVERHEAD <= shard.capacity();
    }

    /** Drops every cached block of {@code fileNumber}, e.g. when the table file is deleted. */
    public void evictFile(long fileNumber) {
        for (ClockShard shard : shards) {
            shard.evictFile(owner, fileNumber);
        }
    }

    /** Drops every block this instance cached (a view's own; the root's own, not its views'), at its database's close. */
    public void evictOwn() {
        for (ClockShard shard : shards) {
            shard.evictOwner(owner);
        }
    }

    /** Hits of this view, or of the whole cache when called on the cache itself. */
    public long hits() {
        return hits.sum();
    }

    /** Misses of this view, or of the whole cache when called on the cache itself. */
    public long misses() {
        return misses.sum();
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    /** Bytes currently charged, overhead included: the whole cache's, views included. */
    public long usedBytes() {
        long total = 0;
        for (ClockShard shard : shards) {
            total += shard.usedBytes();
        }
        return total;
    }

    public int blockCount() {
        int total = 0;
        for (ClockShard shard : shards) {
            total += shard.blockCount();
        }
        return total;
    }

    private static long charge(Block block) {
        return block.byteSize() + ENTRY_OVERHEAD;
    }

    private ClockShard shardFor(long fileNumber, long blockOffset) {
        long h = fileNumber * 0x9E37_79B9_7F4A_7C15L + blockOffset;
        h ^= h >>> 29;
        h *= 0xBF58_476D_1CE4_E5B9L;
        h ^= h >>> 32;
        return shards[(int) Long.remainderUnsigned(h, shards.length)];
    }
}
