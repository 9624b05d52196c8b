package io.varve.server.command;

/**
 * Decides whether a command may run on this server when it is one replica of a Raft group (replicated mode),
 * and makes a command that runs see what it must: see docs/replication.md, "The server's replicated mode".
 * A standalone server uses {@link #STANDALONE}, which runs everything.
 */
public interface ReplicaRouting {

    /** Runs every command here: the server is not replicated. */
    ReplicaRouting STANDALONE = new ReplicaRouting() {
        @Override
        public boolean replicated() {
            return false;
        }

        @Override
        public String admit(CommandSpec spec, byte[][] args, Connection connection) {
            return null;
        }
    };

    /**
     * Whether the server is replicated. Shortcuts that would bypass {@link #admit} (answers from memory on
     * an event loop) are then off; SETs grouped into shared commits ask {@link #takesBlindWriteAtOnce}.
     */
    boolean replicated();

    /**
     * Null if the command may run here, once this returns: on the leader it may first wait until the local
     * state includes every committed write (a read index). Otherwise the error reply to send instead, such as
     * a {@code MOVED} redirect to the leader. Called before a command runs or is queued by MULTI.
     */
    String admit(CommandSpec spec, byte[][] args, Connection connection);

    /**
     * Whether a blind write of {@code key} (a plain SET, which reads nothing) may run here right now without
     * {@link #admit}, grouped with others into one commit: false whenever {@link #admit} would refuse, redirect
     * or wait. A blind write needs no read index: its commit alone shows this member still leads. Never
     * blocks; event loops call it.
     */
    default boolean takesBlindWriteAtOnce(byte[] key) {
        return !replicated();
    }

    /**
     * Called on the command's thread after an admitted command ran, before its reply leaves: null, or the
     * error that replaces its reply. A replica confirms here, if nothing did before, that the state the
     * command answered from was current (a write admitted without a read index that committed nothing).
     */
    default String confirmAnswer() {
        return null;
    }

    /**
     * Null if a blocking command may wait here now; otherwise the error it answers instead (a deposed
     * leader's UNBLOCKED). Checked after the command registered, so a step-down either comes after the check
     * and unblocks it, or before and is seen here. Never blocks.
     */
    default String refusesWaiting() {
        return null;
    }

    /**
     * Runs an admitted command. A replica may need to hold something across it (a follower holds off
     * installing a snapshot, so a READONLY read never sees a half-replaced keyspace); a standalone server
     * just runs it.
     */
    default void run(Runnable command) {
        command.run();
    }

    /** The cluster's members for the CLUSTER commands; null when not replicated. */
    default ClusterView cluster() {
        return null;
    }

    /** The slots whose keys this server counts, lists and flushes; every slot unless a cluster node. */
    default ServedSlots servedSlots() {
        return ServedSlots.EVERY;
    }

    /**
     * Hands a message published here to the subscribers on the other nodes of a cluster (a shard channel's
     * message to the other members of its slot's group); returns at once, delivery is at most once. The
     * other nodes are reached with {@code password} when it is not null. Nothing to do when not a cluster.
     */
    default void forwardPublish(boolean sharded, byte[] channel, byte[] message, String password) {
    }

    /** INFO cluster's fields after {@code cluster_enabled}; none when not a cluster node. */
    default java.util.Map<String, Object> clusterInfo() {
        return java.util.Map.of();
    }
}
