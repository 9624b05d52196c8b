package io.varve.core.internal;

import io.varve.core.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The live snapshots, so that the engine knows the oldest sequence a reader may still ask for (compaction
 * must keep the versions each of them sees). Taking and closing a snapshot are rare next to reads, so a
 * synchronized multiset is enough.
 *
 * <p>The invariant compaction relies on: {@link #oldest} never returns more than the sequence of a snapshot
 * that is live or about to be. So the visible sequence is read <em>under this lock</em>, both when a snapshot
 * takes it and when {@link #oldest} falls back to it. Were a snapshot to read it first and register after, a
 * compaction could in between find no snapshot, take the (since risen) visible sequence as its bound, and drop
 * versions the snapshot needs: the snapshot's next read would miss keys its first read saw. Under the lock,
 * a snapshot registered first bounds {@code oldest}, and one registered after read a visible sequence at
 * least the fallback compaction used (it only rises).
 */
public final class SnapshotList {

    private final TreeMap<Long, List<Entry>> live = new TreeMap<>();
    private boolean closedAll;

    /** A snapshot handed to a user. */
    static final class Entry implements Snapshot {
        private final long sequence;
        private volatile boolean closed;
        private final SnapshotList owner;

        private Entry(long sequence, SnapshotList owner) {
            this.sequence = sequence;
            this.owner = owner;
        }

        @Override
        public long sequence() {
            return sequence;
        }

        void checkUsable(SnapshotList list) {
            if (closed) {
                throw new IllegalStateException("snapshot at sequence " + sequence + " is closed");
            }
            if (list != owner) {
                throw new IllegalArgumentException("snapshot belongs to another database");
            }
        }

        @Override
        public void close() {
            owner.release(this);
        }

        @Override
        public String toString() {
            return "Snapshot[" + sequence + (closed ? ", closed]" : "]");
        }
    }

    /** Registers a snapshot at the sequence {@code visible} gives, read under this list's lock. */
    synchronized Entry take(LongSupplier visible) {
        if (closedAll) {
            throw new IllegalStateException("database is closed");
        }
        long sequence = visible.getAsLong();
        Entry entry = new Entry(sequence, this);
        live.computeIfAbsent(sequence, k -> new ArrayList<>(1)).add(entry);
        return entry;
    }

    private synchronized void release(Entry entry) {
        if (entry.closed) {
            return;
        }
        entry.closed = true;
        List<Entry> atSequence = live.get(entry.sequence);
        if (atSequence != null) {
            atSequence.remove(entry);
            if (atSequence.isEmpty()) {
                live.remove(entry.sequence);
            }
        }
    }

    /** The oldest live snapshot's sequence or, when there is none, {@code visible}'s, read under the lock. */
    synchronized long oldest(LongSupplier visible) {
        return live.isEmpty() ? visible.getAsLong() : live.firstKey();
    }

    /** The newest live snapshot's sequence, or {@code fallback} when there is none. */
    synchronized long newest(long fallback) {
        return live.isEmpty() ? fallback : live.lastKey();
    }

    synchronized void closeAll() {
        closedAll = true;
        for (List<Entry> entries : live.values()) {
            for (Entry entry : entries) {
                entry.closed = true;
            }
        }
        live.clear();
    }
}
