package io.varve.server.cluster;

import io.varve.replication.NotLeaderException;
import io.varve.replication.ReplicationException;
import io.varve.server.resp.RedisError;

import java.util.List;

/**
 * Which nodes make up the cluster: Redis's {@code CLUSTER MEET} and {@code CLUSTER FORGET} (docs/operations.md,
 * "Adding and removing nodes"). Both run on the metadata group's leader (another node hands them there).
 *
 * <p><b>Meet.</b> The new node was started with {@code cluster-join yes} and no data: it serves no topology
 * ({@link TopologyState#joining}) and its metadata member waits to be contacted. The leader asks it for its
 * Raft and client addresses ({@code VARVE CLUSTER JOINSTATE}), records it in the topology (epoch + 1, member of
 * no group), then makes it a learner of the metadata group, from which it applies every state the cluster had
 * and serves the topology like every other node. In that order, so a MEET repeated after a failure between
 * the steps finds the node recorded and only adds the learner.
 *
 * <p><b>Forget.</b> Refused while the node holds a replica of any group. A learner is removed from the metadata
 * group first, then from the topology (a FORGET repeated after a failure between the steps finds it still in the
 * topology); a voter the other way round, since removing the leader itself ends its leadership.
 */
final class ClusterMembership {

    private static final String CANNOT_FORGET_MYSELF = "ERR I tried hard but I can't forget myself...";

    private final ClusterNode node;
    private final ClusterAdmin admin;

    ClusterMembership(ClusterNode node, ClusterAdmin admin) {
        this.node = node;
        this.admin = admin;
    }

    /** This node's Raft address, client address and epoch (0 while it waits to be met). */
    String joinState() {
        ClusterTopology.Node self = node.topology().self();
        return self.raft() + " " + self.clientHost() + ":" + self.clientPort() + " "
                + node.meta().applied().epoch();
    }

    String meet(String host, int port, String password, boolean forwarded) {
        String address = host + ":" + port;
        return admin.onMetadataLeader(List.of("VARVE", "CLUSTER", "MEET", host, Integer.toString(port)), password,
                forwarded, () -> {
                    String[] joiner = PeerRequest.call(address, password, List.of("VARVE", "CLUSTER", "JOINSTATE"),
                            "ERR node " + address + " did not answer").split(" ");
                    long epoch = joiner.length == 3 ? epochOf(joiner[2]) : -1;
                    if (epoch < 0) {
                        throw new RedisError("ERR node " + address + " is not a cluster node");
                    }
                    String raft = joiner[0];
                    String client = joiner[1];
                    boolean known = current().nodes().stream().anyMatch(n -> n.raft().equals(raft));
                    if (!known && epoch != 0) {
                        throw new RedisError("ERR node " + address + " already belongs to a cluster (epoch " + epoch
                                + "); start it with cluster-join yes and an empty directory");
                    }
                    admin.change(state -> state.withNode(raft, client));
                    metadataMembership(() -> node.meta().addLearner(raft));
                    return "OK";
                });
    }

    /** A joiner's epoch as it reported it, or -1 when the reply is not a number (not a Varve node). */
    private static long epochOf(String reported) {
        try {
            return Long.parseLong(reported);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    String forget(String name, String password, boolean forwarded) {
        ClusterTopology.Node target = node.topology().find(name)
                .orElseThrow(() -> new RedisError("ERR Unknown node " + name));
        if (target.self() && !forwarded) {
            throw new RedisError(CANNOT_FORGET_MYSELF); // forwarded, it is the metadata leader forgetting itself
        }
        String raft = target.raft();
        return admin.onMetadataLeader(List.of("VARVE", "CLUSTER", "FORGET", raft), password, forwarded, () -> {
            TopologyState now = current();
            try {
                now.withoutNode(raft); // refused while it holds replicas, or unknown here
            } catch (IllegalArgumentException e) {
                throw new RedisError(e.getMessage());
            }
            MetadataGroup meta = node.meta();
            boolean learner = meta.replicated().membership().learners().contains(raft);
            if (learner) {
                metadataMembership(() -> meta.remove(raft));
            }
            admin.change(state -> state.withoutNode(raft));
            if (!learner) {
                metadataMembership(() -> meta.remove(raft));
            }
            return "OK";
        });
    }

    private TopologyState current() {
        try {
            return node.meta().current();
        } catch (ReplicationException e) {
            throw new RedisError("TRYAGAIN the metadata group could not confirm its state; retry");
        }
    }

    private static void metadataMembership(Runnable change) {
        try {
            change.run();
        } catch (NotLeaderException e) {
            throw new RedisError("TRYAGAIN the metadata group's leader changed; retry");
        } catch (ReplicationException | IllegalArgumentException e) {
            throw new RedisError("ERR the metadata group's membership did not change (" + e.getMessage()
                    + "); send the command again");
        }
    }
}
