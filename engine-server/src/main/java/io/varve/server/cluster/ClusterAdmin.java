package io.varve.server.cluster;

import io.varve.replication.EntryRefusedException;
import io.varve.replication.NotLeaderException;
import io.varve.replication.ReplicationException;
import io.varve.server.replica.GroupMember;
import io.varve.server.resp.RedisError;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The topology operations behind {@code VARVE CLUSTER MOVESLOTS|SPLIT|LEADER|MOVE-REPLICA} and
 * {@code CLUSTER FAILOVER} (docs/operations.md), and the two steps every operation shares
 * ({@link ClusterMembership} uses them too). Each is a change of the replicated topology, computed from the
 * state as of now and proposed on the metadata group's leader (a node that does not lead it hands the
 * command there, {@link PeerRequest}); a change that lost the race to another is recomputed. A slot change or
 * a replica move then runs on its own ({@link TopologyReconciler}, {@link ReplicaMover}) and the command
 * returns once it completed, or says it still runs after {@value #WAIT_MS} ms.
 */
final class ClusterAdmin {

    static final long WAIT_MS = 30_000;
    private static final int ATTEMPTS = 10;

    private final ClusterNode node;

    ClusterAdmin(ClusterNode node) {
        this.node = node;
    }

    String moveSlots(int first, int last, int group, String password, boolean forwarded) {
        return onMetadataLeader(List.of("VARVE", "CLUSTER", "MOVESLOTS", Integer.toString(first),
                Integer.toString(last), Integer.toString(group)), password, forwarded,
                () -> awaitChange(change(state -> state.beginMove(first, last, group))));
    }

    String split(int group, String password, boolean forwarded) {
        return onMetadataLeader(List.of("VARVE", "CLUSTER", "SPLIT", Integer.toString(group)), password,
                forwarded, () -> awaitChange(change(state -> state.beginSplit(group))));
    }

    /**
     * Moves {@code group}'s replica from the node {@code fromName} to {@code toName} (ids, Raft or client
     * addresses): records the move, which the nodes concerned then carry out ({@link ReplicaMover}), and waits
     * until it is over.
     */
    String moveReplica(int group, String fromName, String toName, String password, boolean forwarded) {
        String from = raftOf(fromName);
        String to = raftOf(toName);
        return onMetadataLeader(List.of("VARVE", "CLUSTER", "MOVE-REPLICA", Integer.toString(group), from, to),
                password, forwarded, () -> {
                    long id = change(state -> state.beginReplicaMove(group, from, to)).move().id();
                    try {
                        if (node.reconciler().await(s -> s.move() == null || s.move().id() != id, WAIT_MS)) {
                            return "OK";
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new RedisError("ERR the replica move of epoch " + id + " is still in progress; CLUSTER "
                            + "INFO's cluster_current_epoch grows when it completes");
                });
    }

    /** The group's configuration changed as the move of epoch {@code id} asked: commits the member list. */
    String replicaMoved(long id, String password, boolean forwarded) {
        return onMetadataLeader(List.of("VARVE", "CLUSTER", "REPLICA-MOVED", Long.toString(id)), password,
                forwarded, () -> {
                    change(state -> state.move() != null && state.move().id() == id ? state.replicaMoved(id) : state);
                    return "OK";
                });
    }

    private String raftOf(String name) {
        return node.topology().find(name).orElseThrow(() -> new RedisError("ERR Unknown node " + name)).raft();
    }

    String preferLeader(int group, String name, String password, boolean forwarded) {
        ClusterTopology.Node target = node.topology().find(name)
                .orElseThrow(() -> new RedisError("ERR Unknown node " + name));
        return onMetadataLeader(List.of("VARVE", "CLUSTER", "LEADER", Integer.toString(group), target.raft()),
                password, forwarded, () -> {
                    change(state -> state.withPreferredLeader(group, target.raft()));
                    return "OK";
                });
    }

    /**
     * This node, shown as a replica (it leads no group), becomes the preferred leader of every group its
     * master leads; the balancers then move the leadership, as Redis's manual failover promotes a replica.
     */
    String failover(String password) {
        ClusterTopology topology = node.topology();
        GroupMember[] members = node.groups().members();
        String self = topology.self().raft();
        String master = null;
        for (GroupMember member : members) {
            if (member == null) {
                continue;
            }
            if (member.isLeader()) {
                throw new RedisError("ERR You should send CLUSTER FAILOVER to a replica");
            }
            if (master == null) {
                master = member.replicated().leader().orElse(null);
            }
        }
        if (master == null) {
            throw new RedisError("ERR I'm a replica but my master is unknown to me");
        }
        List<Integer> taken = new ArrayList<>();
        for (int g = 0; g < members.length; g++) {
            if (members[g] != null && master.equals(members[g].replicated().leader().orElse(null))) {
                taken.add(g);
            }
        }
        for (int g : taken) {
            preferLeader(g, self, password, false);
        }
        return "OK";
    }

    /**
     * Runs {@code here} if this node leads the metadata group, else hands {@code command} (with a trailing
     * FORWARDED) to the node that does and returns its reply.
     */
    String onMetadataLeader(List<String> command, String password, boolean forwarded,
                                    Supplier<String> here) {
        MetadataGroup meta = node.meta();
        if (meta.isLeader()) {
            return here.get();
        }
        String leader = meta.leader().flatMap(node.topology()::clientAddressOf).orElse(null);
        if (leader == null || forwarded) {
            throw new RedisError("TRYAGAIN the metadata group has no leader now; retry");
        }
        List<String> forward = new ArrayList<>(command);
        forward.add("FORWARDED");
        return PeerRequest.call(leader, password, forward);
    }

    /**
     * Applies {@code operation} to the topology as of now; returns the state it committed. Proposes nothing
     * when {@code operation} returns the state it was given (nothing to change).
     */
    TopologyState change(UnaryOperator<TopologyState> operation) {
        MetadataGroup meta = node.meta();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            TopologyState next;
            try {
                TopologyState now = meta.current();
                next = operation.apply(now);
                if (next == now) {
                    return now;
                }
            } catch (IllegalArgumentException e) {
                throw new RedisError(e.getMessage());
            } catch (ReplicationException e) {
                throw new RedisError("TRYAGAIN the metadata group could not confirm its state; retry");
            }
            try {
                meta.propose(next);
                node.reconciler().wake();
                node.balancer().wake();
                return next;
            } catch (EntryRefusedException raced) {
                // another change applied first: recompute from the newer state
            } catch (NotLeaderException e) {
                throw new RedisError("TRYAGAIN the metadata group's leader changed; retry");
            } catch (ReplicationException e) {
                throw new RedisError("ERR the topology change may or may not have been applied: "
                        + e.getMessage());
            }
        }
        throw new RedisError("TRYAGAIN the topology kept changing; retry");
    }

    /** Waits until the slot change {@code begun} started is over. */
    private String awaitChange(TopologyState begun) {
        long id = begun.change().id();
        try {
            if (node.reconciler().await(s -> s.change() == null || s.change().id() != id, WAIT_MS)) {
                return "OK";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new RedisError("ERR the slot change of epoch " + id + " is still in progress; CLUSTER INFO's "
                + "cluster_current_epoch grows when it completes");
    }
}
