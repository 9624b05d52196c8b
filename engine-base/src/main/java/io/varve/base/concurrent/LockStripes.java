package io.varve.base.concurrent;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Mutual exclusion per key without a lock object per key: keys hash onto a fixed array of locks (stripes), so
 * two holders of the same key run one after the other, while holders of different keys share a lock only by
 * hash collision. Used for read-modify-write commands on one Redis key and for optimistic transactions'
 * validate-and-write; readers take no stripe.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>A holder of several keys takes their stripes in ascending index order, each once however often its
 *       keys repeat, so no two holders can wait for each other in a cycle. That holds only for stripes taken
 *       in one call ({@link #lockAll}, {@link #lockAllHashes}, {@link #tryLockAll}): locking another key while
 *       holding a stripe can deadlock.</li>
 *   <li>A {@link Held} releases exactly the stripes it took when closed, in descending order; use it in
 *       try-with-resources. Closing it twice releases twice (a {@link ReentrantLock} then throws).</li>
 *   <li>Stripes are reentrant: a thread holding a key's stripe may lock it again and must close both.</li>
 *   <li>{@link ReentrantLock} parks a virtual thread without pinning its carrier, so virtual threads may hold
 *       and wait for stripes.</li>
 * </ul>
 * Byte-array keys hash with {@link Arrays#hashCode(byte[])}; other keys are given by their hash code
 * ({@link #lockAllHashes}); both go through one mixing step so that similar keys spread over the stripes.
 */
public final class LockStripes {

    /** Stripes held together; closing releases them. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private final ReentrantLock[] locks;
    private final int mask;

    /** @param stripes how many locks, a power of two: more stripes, fewer collisions between unrelated keys */
    public LockStripes(int stripes) {
        if (stripes <= 0 || Integer.bitCount(stripes) != 1) {
            throw new IllegalArgumentException("stripes must be a power of two: " + stripes);
        }
        locks = new ReentrantLock[stripes];
        for (int i = 0; i < stripes; i++) {
            locks[i] = new ReentrantLock();
        }
        mask = stripes - 1;
    }

    /** The stripe of a byte-array key: its index in the locking order (tests use it to order keys). */
    public int stripeOf(byte[] key) {
        return stripeOfHash(Arrays.hashCode(key));
    }

    /** The stripe of a key with hash code {@code hash}. */
    public int stripeOfHash(int hash) {
        int h = hash ^ (hash >>> 16);
        return (h * 0x9E3779B9) >>> 16 & mask;
    }

    /** Locks {@code key}'s stripe, waiting as long as it takes. */
    public Held lock(byte[] key) {
        ReentrantLock lock = locks[stripeOf(key)];
        lock.lock();
        return lock::unlock;
    }

    /** Locks the stripes of all {@code keys} (duplicates allowed) in the one deadlock-free order. */
    public Held lockAll(byte[]... keys) {
        if (keys.length == 1) {
            return lock(keys[0]);
        }
        int[] stripes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            stripes[i] = stripeOf(keys[i]);
        }
        return lockStripes(distinctSorted(stripes));
    }

    /**
     * Locks the stripes of keys given by their hash codes (duplicates allowed), for keys that are not byte
     * arrays, such as a transaction's (column family, key) pairs. The array is not kept.
     */
    public Held lockAllHashes(int[] hashes) {
        int[] stripes = new int[hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            stripes[i] = stripeOfHash(hashes[i]);
        }
        return lockStripes(distinctSorted(stripes));
    }

    /**
     * Like {@link #lockAll} but never waits: takes every stripe at once if each is free, else takes none and
     * returns null. For a thread that must not block (an event loop), which can then hand the work to one
     * that may.
     */
    public Held tryLockAll(byte[]... keys) {
        int[] stripes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            stripes[i] = stripeOf(keys[i]);
        }
        stripes = distinctSorted(stripes);
        for (int i = 0; i < stripes.length; i++) {
            if (!locks[stripes[i]].tryLock()) {
                for (int j = i - 1; j >= 0; j--) {
                    locks[stripes[j]].unlock();
                }
                return null;
            }
        }
        return releaser(stripes);
    }

    /** Every stripe: excludes every other holder (a whole-keyspace operation such as FLUSHDB). */
    public Held lockEverything() {
        int[] all = new int[locks.length];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return lockStripes(all);
    }

    /** Sorts {@code stripes} in place and returns its distinct values, in the order every multi-stripe lock uses. */
    private static int[] distinctSorted(int[] stripes) {
        Arrays.sort(stripes);
        int distinct = 0;
        for (int i = 0; i < stripes.length; i++) {
            if (i == 0 || stripes[i] != stripes[i - 1]) {
                stripes[distinct++] = stripes[i];
            }
        }
        return distinct == stripes.length ? stripes : Arrays.copyOf(stripes, distinct);
    }

    private Held lockStripes(int[] sortedDistinct) {
        int taken = 0;
        try {
            for (int s : sortedDistinct) {
                locks[s].lock();
                taken++;
            }
        } catch (RuntimeException | Error e) {
            for (int i = taken - 1; i >= 0; i--) {
                locks[sortedDistinct[i]].unlock();
            }
            throw e;
        }
        return releaser(sortedDistinct);
    }

    private Held releaser(int[] sortedDistinct) {
        return () -> {
            for (int i = sortedDistinct.length - 1; i >= 0; i--) {
                locks[sortedDistinct[i]].unlock();
            }
        };
    }
}
