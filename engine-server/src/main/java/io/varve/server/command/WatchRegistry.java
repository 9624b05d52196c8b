package io.varve.server.command;

import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which transactions watch which keys, so a write can mark them dirty. A write touches its keys after its
 * commit and before it leaves the {@link CommandGate}'s shared side, so an EXEC (exclusive side) sees every
 * write that happened before it as a dirty mark. Registration and touching are per-key atomic
 * ({@code ConcurrentHashMap.compute}); a write racing a WATCH of its key may mark it dirty, which only
 * makes the EXEC fail safe.
 *
 * <p>Keys are watched in <em>logical</em> databases (what SELECT numbers), as in Redis: a watch follows the
 * database the client named, not the storage under it. A write marks the logical database its connection had
 * selected when it ran ({@link io.varve.server.store.Databases#logical} of the physical database it wrote, for
 * writes that were not made through one connection's command: SET runs, replicated entries); the map cannot change while a write holds the gate's shared side.
 * SWAPDB exchanges what two logical databases hold, so it marks every watcher of both, inside the gate's
 * exclusive side, before any EXEC can run on the swapped contents. FLUSHDB and FLUSHALL mark every watcher of
 * the databases they empty. Expiry marks nothing here: each watched key remembers the deadline it had when
 * watched, and EXEC aborts if that deadline has passed (Redis's rule: a key already expired when watched does
 * not count).
 *
 * <p>Conservative by design: any successful write command naming a key touches it, even when it changed
 * nothing (SET NX on an existing key), and a flush or swap marks watched keys that were absent. Redis touches
 * only real changes; an extra abort is safe (the client retries), a missed one is not.
 *
 * <p>Removing a transaction's keys ({@code TransactionCommands.unwatchAll}) happens before its dirty mark is
 * reset, so a write racing the removal can only leave the mark it makes erased, never set afterwards.
 */
public final class WatchRegistry {

    /** A key in one logical database. */
    public record Key(int database, byte[] key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.database == database && Arrays.equals(k.key, key);
        }

        @Override
        public int hashCode() {
            return 31 * database + Arrays.hashCode(key);
        }
    }

    private final ConcurrentHashMap<Key, Set<MultiState>> watchers = new ConcurrentHashMap<>();
    /** Runs as an unwatch or a whole-database mark begins; tests use it to force an interleaving there. */
    volatile Runnable probe = () -> { };

    void watch(Key key, MultiState transaction) {
        watchers.compute(key, (k, set) -> {
            Set<MultiState> s = set != null ? set : Collections.newSetFromMap(new IdentityHashMap<>());
            s.add(transaction);
            return s;
        });
    }

    void unwatch(Key key, MultiState transaction) {
        probe.run();
        watchers.computeIfPresent(key, (k, set) -> {
            set.remove(transaction);
            return set.isEmpty() ? null : set;
        });
    }

    /** A write to {@code key} of {@code database} happened. */
    void touch(int database, byte[] key) {
        if (watchers.isEmpty()) {
            return;
        }
        watchers.computeIfPresent(new Key(database, key), (k, set) -> {
            set.forEach(MultiState::markDirty);
            return set;
        });
    }

    /** Every key of {@code database} changed (FLUSHDB, SWAPDB), or of every database when it is negative. */
    void touchDatabase(int database) {
        probe.run();
        for (Key key : watchers.keySet()) {
            if (database < 0 || key.database() == database) {
                watchers.computeIfPresent(key, (k, set) -> {
                    set.forEach(MultiState::markDirty);
                    return set;
                });
            }
        }
    }

    /** Keys watched by anyone (INFO, tests). */
    public int watchedKeys() {
        return watchers.size();
    }
}
