package io.varve.server.store;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link DeadRuns} of the sets SPOP used most recently, by set version (versions are unique within a
 * keyspace, so a deleted or re-created set never inherits another's knowledge). Memory only: a restart
 * starts without hints and the first pop of each set learns its bounds again. At most {@link #MAX_SETS}
 * sets are remembered, the least recently used forgotten first.
 *
 * <p>Whoever writes a member into an existing set version must call {@link #memberAdded} before committing
 * ({@link SetStore#add} does), so no run claims a live member. All methods are thread-safe.
 */
public final class SetPopHints {

    static final int MAX_SETS = 256;

    private final Map<Long, DeadRuns> byVersion = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, DeadRuns> eldest) {
            return size() > MAX_SETS;
        }
    };
    /** Sees every member range a pick reads; tests use it to count the tombstones a pick crosses. */
    private volatile ScanListener listener;

    /** A member range a pick read: {@code [from, limit)} (null limit: to the end), first live member found or null. */
    interface ScanListener {
        void scanned(long version, byte[] from, byte[] limit, byte[] found);
    }

    synchronized DeadRuns get(long version) {
        return byVersion.get(version);
    }

    synchronized void put(long version, DeadRuns runs) {
        byVersion.put(version, runs);
    }

    /** Drops every hint (another writer may have changed any set meanwhile). */
    public synchronized void forgetAll() {
        byVersion.clear();
    }

    public synchronized void forget(long version) {
        byVersion.remove(version);
    }

    void memberAdded(long version, byte[] member) {
        DeadRuns runs = get(version);
        if (runs != null) {
            runs.reopen(member);
        }
    }

    void listen(ScanListener newListener) {
        this.listener = newListener;
    }

    void scanned(long version, byte[] from, byte[] limit, byte[] found) {
        ScanListener l = listener;
        if (l != null) {
            l.scanned(version, from, limit, found);
        }
    }
}
