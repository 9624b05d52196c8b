package io.varve.server.store;

/**
 * Changes to the keyspace that reached this server's database without running a command here: in replicated
 * mode, every entry the Raft group applies (including this member's own writes) and every snapshot it
 * installs. Called on the replication layer's apply thread, after the change is in the database and before
 * anyone waiting for it is told; implementations must be quick and must not wait.
 */
public interface AppliedChanges {

    /** An engine key (any of {@link KeyEncoding}'s kinds) was put or deleted. */
    void written(byte[] engineKey);

    /** The whole state was replaced (a snapshot was installed). */
    void replaced();
}
