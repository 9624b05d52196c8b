package io.varve.server.store;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serialises writers of the same Redis key. Every command that writes a key holds that key's stripe while
 * it reads the current state, decides, and commits its batch, so read-modify-write commands (INCR, APPEND,
 * HINCRBY, SET NX ...) are atomic against each other, as they are in single-threaded Redis. Readers take no
 * lock: a batch commit is atomic and a reader sees the state before or after it.
 *
 * <p>Keys hash onto a fixed array of locks, so unrelated keys share a lock only by collision. Commands on
 * several keys lock their stripes in ascending index order, so no two commands can wait on each other in a
 * cycle. ReentrantLock parks virtual threads without pinning their carrier.
 */
public final class LockStripes {

    private final ReentrantLock[] locks;
    private final int mask;

    public LockStripes(int stripes) {
        if (Integer.bitCount(stripes) != 1) {
            throw new IllegalArgumentException("stripes must be a power of two: " + stripes);
        }
        locks = new ReentrantLock[stripes];
        for (int i = 0; i < stripes; i++) {
            locks[i] = new ReentrantLock();
        }
        mask = stripes - 1;
    }

    /** A held lock; closing releases it. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    int stripeOf(byte[] key) {
        int h = Arrays.hashCode(key);
        h ^= (h >>> 16);
        return (h * 0x9E3779B9) >>> 16 & mask;
    }

    public Held lock(byte[] key) {
        ReentrantLock lock = locks[stripeOf(key)];
        lock.lock();
        return lock::unlock;
    }

    /** Locks the stripes of all {@code keys} (duplicates allowed) in a deadlock-free order. */
    public Held lockAll(byte[]... keys) {
        if (keys.length == 1) {
            return lock(keys[0]);
        }
        return lockStripes(distinctSortedStripes(keys));
    }

    /** The stripes of {@code keys}, each once, in the ascending order every multi-stripe lock uses. */
    private int[] distinctSortedStripes(byte[][] keys) {
        int[] stripes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            stripes[i] = stripeOf(keys[i]);
        }
        Arrays.sort(stripes);
        int distinct = 0;
        for (int i = 0; i < stripes.length; i++) {
            if (i == 0 || stripes[i] != stripes[i - 1]) {
                stripes[distinct++] = stripes[i];
            }
        }
        return distinct == stripes.length ? stripes : Arrays.copyOf(stripes, distinct);
    }

    /**
     * Like {@link #lockAll} but never waits: takes every stripe at once if each is free, else takes none and
     * returns null. For a thread that must not block (an event loop), which can then hand the work to one
     * that may.
     */
    public Held tryLockAll(byte[]... keys) {
        int[] stripes = distinctSortedStripes(keys);
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

    /** Every stripe: excludes all writers (FLUSHDB). */
    public Held lockEverything() {
        int[] all = new int[locks.length];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return lockStripes(all);
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
