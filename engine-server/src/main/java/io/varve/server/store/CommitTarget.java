package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;

/**
 * Where the keyspace's commits go: the local database, or (replicated mode) a Raft group that applies each
 * batch to every replica's database before {@link #write} returns. Every write of the server reaches the
 * engine through one of these, so a batch computed once (with absolute expiry times, chosen members, new
 * versions) is what every replica applies.
 */
public interface CommitTarget {

    /** Applies the batch atomically; throws if it was not applied (a replicated write may then still apply). */
    void write(WriteBatch batch, WriteOptions options);

    /**
     * Whether a write completes on this machine alone. False when replicated: a write then waits for other
     * machines, so event loops must not commit and engine-level options (sync, no-slowdown) do not apply.
     */
    boolean local();

    /**
     * Whether a writer outside any command (the expiry sweep) may write {@code engineKey} here now. In
     * cluster mode only the leader of the key's group may; elsewhere every key is this target's.
     */
    default boolean writesHere(byte[] engineKey) {
        return true;
    }

    /**
     * Whether the keyspace writing here must use the slotted layout ({@link Database#SLOTTED}): a target
     * that splits the keyspace among groups by hash slot reads each write's slot from its engine keys, and
     * wants each slot's keys to be a key range it can snapshot and replace.
     */
    default boolean slotsInKeys() {
        return false;
    }

    /** Commits straight to {@code db}. */
    static CommitTarget local(Db db) {
        return new CommitTarget() {
            @Override
            public void write(WriteBatch batch, WriteOptions options) {
                db.write(batch, options);
            }

            @Override
            public boolean local() {
                return true;
            }
        };
    }
}
