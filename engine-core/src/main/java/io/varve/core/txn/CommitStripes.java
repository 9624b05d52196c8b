package io.varve.core.txn;

import java.util.Collection;
import java.util.TreeSet;
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
        TreeSet<Integer> indexes = new TreeSet<>();
        for (KeyLocks.LockKey key : keys) {
            indexes.add(Math.floorMod(key.hashCode(), stripes.length));
        }
        int taken = 0;
        try {
            for (int index : indexes) {
                stripes[index].lock();
                taken++;
            }
            action.run();
        } finally {
            int released = 0;
            for (int index : indexes) {
                if (released++ == taken) {
                    break;
                }
                stripes[index].unlock();
            }
        }
    }
}
