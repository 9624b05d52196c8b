package io.varve.core.internal.sst;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One shard of the {@link BlockCache}: a lock-free lookup map plus a CLOCK eviction queue behind a lock.
 *
 * <p>{@link #map} holds the live entries; {@link #get} reads it without locking. {@link #clock} is the
 * clock: entries in insertion order, the hand at its head. Everything else (the map's mutations, the clock,
 * the {@code removed} flags and the byte and entry counts) changes only under {@link #lock}.
 *
 * <p>Invariants while the lock is free:
 * <ul>
 *   <li>an entry is live (in the map, {@code removed} clear) exactly when it is the map's value for its key;
 *       every live entry is on the clock once; other clock slots are stale ({@code removed} set, counted by
 *       {@link #stale}) and are dropped, never evicted, when the hand reaches them, so a replaced entry can
 *       never take its successor with it;</li>
 *   <li>{@link #used} is the sum of the live entries' charges and at most {@link #capacity};
 *       {@link #count} is their number;</li>
 *   <li>the volatile {@link #usedView} and {@link #countView} are written once, at the end of each locked
 *       change, so unlocked readers see only states that satisfy the line above;</li>
 *   <li>stale slots number at most the live entries plus a small constant, so the clock stays proportional
 *       to what the shard holds however often keys are replaced.</li>
 * </ul>
 */
final class ClockShard {

    /** Compact the clock once stale slots exceed the live entries by this many. */
    private static final int STALE_SLACK = 16;

    /**
     * Each thread's lookup key, reused so that a lookup allocates nothing. A fresh key per lookup is not
     * removed by escape analysis: it escapes through {@code ConcurrentHashMap.get}'s collision-chain
     * {@code equals} call, which C2 does not inline (measured: 32 bytes per lookup on JDK 25).
     */
    private static final ThreadLocal<Key> PROBE = ThreadLocal.withInitial(() -> new Key(0, 0, 0));

    /**
     * A cache key: an {@link Entry}, which is its own map key, or a thread's {@link #PROBE}. The owner tells
     * apart databases sharing one cache, whose file numbers repeat. Fields are not final only so that the
     * probe can be reused; an entry's never change after construction.
     */
    static sealed class Key permits Entry {
        long owner;
        long fileNumber;
        long blockOffset;

        Key(long owner, long fileNumber, long blockOffset) {
            this.owner = owner;
            this.fileNumber = fileNumber;
            this.blockOffset = blockOffset;
        }

        @Override
        public final boolean equals(Object o) {
            return o instanceof Key k && k.fileNumber == fileNumber && k.blockOffset == blockOffset
                    && k.owner == owner;
        }

        @Override
        public final int hashCode() {
            return Long.hashCode((owner * 0xC2B2_AE3D_27D4_EB4FL + fileNumber) * 0x9E37_79B9_7F4A_7C15L + blockOffset);
        }
    }

    /** A cached block. Equal to any key with the same file number and offset, so never compare entries by value. */
    static final class Entry extends Key {
        final Block block;
        final long charge;
        /**
         * Set by hits, cleared by the hand. A plain field is enough: the bit is a hint that publishes
         * nothing (blocks reach readers through the map), so the worst a hit racing the hand can do is have
         * its mark wiped or be seen a sweep late, and the block then goes one sweep early or late. Which
         * block is evicted may change; that the accounting is right and only live entries are evicted does not.
         */
        boolean referenced;
        /** Replaced or evicted; guarded by the lock. */
        boolean removed;

        Entry(long owner, long fileNumber, long blockOffset, Block block, long charge) {
            super(owner, fileNumber, blockOffset);
            this.block = block;
            this.charge = charge;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentHashMap<Key, Entry> map = new ConcurrentHashMap<>();
    private final ArrayDeque<Entry> clock = new ArrayDeque<>();
    private final long capacity;
    private long used;
    private int count;
    private int stale;
    private volatile long usedView;
    private volatile int countView;

    ClockShard(long capacity) {
        this.capacity = capacity;
    }

    long capacity() {
        return capacity;
    }

    Block get(long owner, long fileNumber, long blockOffset) {
        Key probe = PROBE.get();
        probe.owner = owner;
        probe.fileNumber = fileNumber;
        probe.blockOffset = blockOffset;
        Entry entry = map.get(probe);
        if (entry == null) {
            return null;
        }
        // Test first: a hot block's bit is almost always set already, and not writing keeps its cache line
        // shared between the cores that read it.
        if (!entry.referenced) {
            entry.referenced = true;
        }
        return entry.block;
    }

    /** Caches {@code block}, whose charge fits the shard, under the key, replacing what was there. */
    void put(long owner, long fileNumber, long blockOffset, Block block, long charge) {
        assert charge <= capacity;
        Entry entry = new Entry(owner, fileNumber, blockOffset, block, charge);
        lock.lock();
        try {
            Entry previous = map.put(entry, entry);
            if (previous != null) {
                previous.removed = true;
                stale++;
                used -= previous.charge;
                count--;
            }
            // Room is made before the new entry joins the clock, so the hand can never pick it.
            makeRoom(charge);
            clock.addLast(entry);
            used += charge;
            count++;
            if (stale > count + STALE_SLACK) {
                clock.removeIf(e -> e.removed);
                stale = 0;
            }
            publish();
        } finally {
            lock.unlock();
        }
    }

    void evictFile(long owner, long fileNumber) {
        lock.lock();
        try {
            clock.removeIf(e -> e.removed || (e.owner == owner && e.fileNumber == fileNumber && evict(e)));
            stale = 0;
            publish();
        } finally {
            lock.unlock();
        }
    }

    void evictOwner(long owner) {
        lock.lock();
        try {
            clock.removeIf(e -> e.removed || (e.owner == owner && evict(e)));
            stale = 0;
            publish();
        } finally {
            lock.unlock();
        }
    }

    long usedBytes() {
        return usedView;
    }

    int blockCount() {
        return countView;
    }

    /**
     * Moves the hand until {@code needed} more bytes fit. Referenced entries get at most {@code 2 * count}
     * second chances in all (about two passes: the first clears every bit, the second only meets bits that
     * hits set again meanwhile); after that the hand evicts whatever it meets, so a put ends even while hits
     * keep marking entries.
     */
    private void makeRoom(long needed) {
        int secondChances = 2 * count;
        while (used + needed > capacity) {
            // Not empty: needed <= capacity, so used > 0 and some live entry is on the clock.
            Entry entry = clock.pollFirst();
            if (entry.removed) {
                stale--;
            } else if (entry.referenced && secondChances > 0) {
                secondChances--;
                entry.referenced = false;
                clock.addLast(entry);
            } else {
                evict(entry);
            }
        }
    }

    /** Removes a live entry from the map and the counts; the caller takes it off the clock. */
    private boolean evict(Entry entry) {
        // By key: a live entry is the map's value for its key (see the class invariants).
        map.remove(entry);
        entry.removed = true;
        used -= entry.charge;
        count--;
        return true;
    }

    private void publish() {
        usedView = used;
        countView = count;
    }
}
