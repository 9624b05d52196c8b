package io.varve.core.internal.txn;

import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The locks optimistic commits take around validate-and-write, one per stripe of the key space, so that two
 * commits touching a common key run one after the other while commits on different keys run in parallel.
 * A commit takes its stripes in ascending index order, so commits never deadlock. Held for one commit only.
 */
public final class CommitStripes {

    private final ReentrantLock[] stripes;

    public CommitStripes(int count) {
        stripes = new ReentrantLock[count];
        for (int i = 0; i < count; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /** Runs {@code action} holding the stripes of every key in {@code keys}. */
    public void run(Collection<KeyLocks.LockKey> keys, Runnable action) {
        int[] indexes = new int[keys.size()];
        int count = 0;
        for (KeyLocks.LockKey key : keys) {
            indexes[count++] = Math.floorMod(key.hashCode(), stripes.length);
        }
        Arrays.sort(indexes, 0, count);
        int distinct = 0;
        for (int i = 0; i < count; i++) {
            if (distinct == 0 || indexes[distinct - 1] != indexes[i]) {
                indexes[distinct++] = indexes[i];
            }
        }
        int taken = 0;
        try {
            while (taken < distinct) {
                stripes[indexes[taken]].lock();
                taken++;
            }
            action.run();
        } finally {
            for (int i = 0; i < taken; i++) {
                stripes[indexes[i]].unlock();
            }
        }
    }
}
