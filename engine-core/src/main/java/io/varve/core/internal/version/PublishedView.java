package io.varve.core.internal.version;

import java.util.concurrent.locks.StampedLock;
import java.util.function.BooleanSupplier;

/**
 * One column family's published read view: the pointer readers pin (Pebble keeps the same apart from its
 * version set, as {@code readState}). Publishing is only the assignment under the write side of a
 * {@link StampedLock}; the {@link VersionSet} decides what to publish under its own locks (see its type
 * comment) and releases the previous view after the swap, outside every lock.
 *
 * <p>Readers never block on a publisher's work: {@link #acquire} reads the pointer under an optimistic stamp
 * and adds a reference with a CAS ({@link ReadView#tryRetain}). If a swap happened meanwhile, or the view read
 * was already released, it waits for the swap's short write lock and tries again. Each family has its own
 * lock, so publishing for one family never makes readers of another retry.
 */
final class PublishedView {

    private final StampedLock swapLock = new StampedLock();
    /** Written under swapLock's write lock, read optimistically. Null once withdrawn (dropped or closed). */
    private ReadView current;

    PublishedView(ReadView first) {
        this.current = first;
    }

    /**
     * The current view with a reference owned by the caller, or null once the view was withdrawn and
     * {@code gone} says so (the caller then throws its own closed or dropped exception). Retries while the
     * view it read was released by a concurrent swap.
     */
    ReadView acquire(BooleanSupplier gone) {
        while (true) {
            long stamp = swapLock.tryOptimisticRead();
            ReadView view = current;
            if (stamp != 0 && swapLock.validate(stamp) && view != null && view.tryRetain()) {
                return view;
            }
            if (stamp == 0 || !swapLock.validate(stamp)) {
                // A swap is in progress or just happened: wait for it rather than spin.
                stamp = swapLock.readLock();
                try {
                    view = current;
                } finally {
                    swapLock.unlockRead(stamp);
                }
                if (view != null && view.tryRetain()) {
                    return view;
                }
            }
            if (gone.getAsBoolean()) {
                return null;
            }
        }
    }

    /**
     * The view as the last publisher left it, without a reference: for publishers, which hold the version
     * set's view lock, so it cannot change under them.
     */
    ReadView peek() {
        return current;
    }

    /** Publishes {@code next} (null withdraws the view) and returns the previous one, whose reference the caller now owns. */
    ReadView swap(ReadView next) {
        long stamp = swapLock.writeLock();
        try {
            ReadView old = current;
            current = next;
            return old;
        } finally {
            swapLock.unlockWrite(stamp);
        }
    }

    /** Withdraws the view and runs {@code whileLocked} in the same critical section (marking the family dropped). */
    ReadView withdraw(Runnable whileLocked) {
        long stamp = swapLock.writeLock();
        try {
            ReadView old = current;
            current = null;
            whileLocked.run();
            return old;
        } finally {
            swapLock.unlockWrite(stamp);
        }
    }
}
