package io.varve.core;

import io.varve.core.memtable.Memtable;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a reader needs to see the database: the mutable memtable and the immutable ones, newest first. A view
 * is immutable; the engine publishes a new one whenever the set changes, and readers pin the one they start
 * with, so the memtables they read cannot be freed under them.
 *
 * <p>Reference counting: the engine holds one reference to the current view; each reader holds one while
 * reading. The view holds one reference on each of its memtables and drops them when its own count reaches
 * zero. {@link #tryRetain()} fails on a view whose count already reached zero, and the caller then re-reads
 * the current view — a view is never resurrected.
 */
final class ReadView {

    final Memtable mutable;
    /** Immutable memtables, newest first. */
    final List<Memtable> immutables;
    private final AtomicInteger references = new AtomicInteger(1);

    ReadView(Memtable mutable, List<Memtable> immutables) {
        this.mutable = mutable;
        this.immutables = List.copyOf(immutables);
        mutable.retain();
        for (Memtable m : this.immutables) {
            m.retain();
        }
    }

    boolean tryRetain() {
        int n;
        do {
            n = references.get();
            if (n == 0) {
                return false;
            }
        } while (!references.compareAndSet(n, n + 1));
        return true;
    }

    void release() {
        int n = references.decrementAndGet();
        if (n == 0) {
            mutable.release();
            for (Memtable m : immutables) {
                m.release();
            }
        } else if (n < 0) {
            throw new IllegalStateException("read view released more often than retained");
        }
    }

    /** Memtables newest first: the order in which a point lookup must consult them. */
    List<Memtable> memtablesNewestFirst() {
        java.util.ArrayList<Memtable> all = new java.util.ArrayList<>(immutables.size() + 1);
        all.add(mutable);
        all.addAll(immutables);
        return all;
    }
}
