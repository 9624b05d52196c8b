package io.varve.core;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The live snapshots, so that the engine knows the oldest sequence a reader may still ask for (compaction
 * must keep the versions each of them sees). Taking and closing a snapshot are rare next to reads, so a
 * synchronized multiset is enough.
 */
final class SnapshotList {

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

    synchronized Entry take(long sequence) {
        if (closedAll) {
            throw new IllegalStateException("database is closed");
        }
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

    /** The oldest live snapshot's sequence, or {@code fallback} when there is none. */
    synchronized long oldest(long fallback) {
        return live.isEmpty() ? fallback : live.firstKey();
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
