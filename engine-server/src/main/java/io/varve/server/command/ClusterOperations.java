package io.varve.server.command;

/**
 * The online topology operations of a cluster node (docs/operations.md), behind {@code VARVE CLUSTER ...} and
 * {@code CLUSTER FAILOVER}. Each returns the simple-string reply or throws a {@code RedisError}. A node that
 * does not lead the metadata group hands the operation to the node that does, authenticating with
 * {@code password} (the nodes share {@code requirepass}); {@code forwarded} says the operation already came
 * that way, so it is not handed on again.
 */
public interface ClusterOperations {

    /** Moves slots {@code first}..{@code last} to {@code group}; returns once the group serves them. */
    String moveSlots(int first, int last, int group, String password, boolean forwarded);

    /** Creates a group on {@code group}'s members and moves the upper half of its slots there. */
    String split(int group, String password, boolean forwarded);

    /** Makes {@code node} (id, Raft or client address) the preferred leader of {@code group}. */
    String preferLeader(int group, String node, String password, boolean forwarded);

    /** Redis's CLUSTER FAILOVER: this node, shown as a replica, takes over its master's groups. */
    String failover(String password);

    /**
     * Redis's CLUSTER MEET: the node at {@code host:port}, started to join, becomes a node of this cluster
     * holding no replica; returns once every node's topology can list it.
     */
    String meet(String host, int port, String password, boolean forwarded);

    /** Redis's CLUSTER FORGET: removes {@code node} (id, Raft or client address), which must hold no replica. */
    String forget(String node, String password, boolean forwarded);

    /** This node's Raft address, client address and topology epoch (0: waiting to be met), space-separated. */
    String joinState();

    /**
     * Moves {@code group}'s replica from node {@code from} to node {@code to} (ids, Raft or client addresses);
     * returns once the group's members are the new list.
     */
    String moveReplica(int group, String from, String to, String password, boolean forwarded);

    /** Sent by a group's leader once its configuration changed as the move of epoch {@code id} asked. */
    String replicaMoved(long id, String password, boolean forwarded);

    /** The Raft index this node's member of {@code group} has applied (a move's leader asks the target). */
    long appliedIndex(int group);

    /**
     * The id of the last slot change this node's member of {@code group} has applied (a metadata leader with
     * no member of the group asks its members).
     */
    long lastSlotChange(int group);
}
