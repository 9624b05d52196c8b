package io.varve.core.internal.memtable;

import io.varve.core.internal.rangedel.FragmentedTombstones;
import io.varve.core.internal.rangedel.RangeTombstone;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A memtable's range tombstones: an append-only concurrent list plus a fragmented copy rebuilt lazily when a
 * reader finds the list grown. Range deletions are rare next to point writes, so a rebuild per new tombstone
 * (O(n log n)) is cheap, and reads between deletions share one fragmented copy.
 *
 * <p>Invariant: a tombstone is in the list, and {@link #count} counts it, before {@link #add} returns, hence
 * before the commit pipeline publishes its sequence. A reader that asks after seeing sequence {@code s}
 * visible therefore gets every tombstone at or below {@code s}; newer ones it may also get are filtered out
 * by sequence at lookup.
 */
final class MemtableTombstones {

    private record Cached(int count, FragmentedTombstones fragments) {
    }

    private final ConcurrentLinkedQueue<RangeTombstone> list = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();
    private volatile Cached cached = new Cached(0, FragmentedTombstones.empty());

    void add(RangeTombstone tombstone) {
        list.add(tombstone);
        count.incrementAndGet();
    }

    int count() {
        return count.get();
    }

    FragmentedTombstones fragmented() {
        Cached current = cached;
        if (current.count() >= count.get()) {
            return current.fragments();
        }
        synchronized (this) {
            current = cached;
            int wanted = count.get();
            if (current.count() >= wanted) {
                return current.fragments();
            }
            // The copy may hold more than wanted (adds racing with it); counting them all is still exact.
            List<RangeTombstone> all = List.copyOf(list);
            current = new Cached(all.size(), FragmentedTombstones.of(all));
            cached = current;
            return current.fragments();
        }
    }
}
