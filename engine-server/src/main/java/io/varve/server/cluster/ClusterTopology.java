package io.varve.server.cluster;

import io.varve.server.replica.RaftReplica;
import io.varve.server.replica.ReplicationSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The cluster's shape as this node knows it: every node (Raft and client addresses, node id), the slot map,
 * and which node each group prefers as its leader. Static for now: it comes from the start command
 * ({@code raft-peers}, {@code cluster-groups}) and is the same on every node given the same arguments
 * (docs/cluster.md, "Topology"). Immutable.
 *
 * @param nodes every node, ordered by Raft address (the order every node computes alike)
 * @param slots which group owns each slot
 */
record ClusterTopology(List<Node> nodes, SlotMap slots) {

    /**
     * @param raft       its Raft address, also its identity in every group
     * @param clientHost where clients reach it (RESP)
     * @param clientPort where clients reach it (RESP)
     * @param id         its Redis Cluster node id (SHA-1 of the Raft address)
     * @param self       whether it is this node
     */
    record Node(String raft, String clientHost, int clientPort, String id, boolean self) {
    }

    static ClusterTopology of(ReplicationSettings settings, SlotMap slots) {
        List<Node> nodes = new ArrayList<>();
        for (String raft : new TreeSet<>(settings.peers().keySet())) {
            String client = settings.peers().get(raft);
            int colon = client.lastIndexOf(':');
            nodes.add(new Node(raft, client.substring(0, colon), Integer.parseInt(client.substring(colon + 1)),
                    RaftReplica.nodeId(raft), raft.equals(settings.raftAddress())));
        }
        return new ClusterTopology(List.copyOf(nodes), slots);
    }

    /** The Raft group name of group {@code g}. */
    static String groupName(int g) {
        return "slots-" + g;
    }

    /** The node group {@code g} prefers as its leader: group g on node g mod n, so leaders spread evenly. */
    Node preferredLeader(int group) {
        return nodes.get(group % nodes.size());
    }

    Node self() {
        return nodes.stream().filter(Node::self).findFirst().orElseThrow();
    }

    /** The client address {@code host:port} of the node at Raft address {@code raft}. */
    Optional<String> clientAddressOf(String raft) {
        return nodes.stream().filter(n -> n.raft().equals(raft)).findFirst()
                .map(n -> n.clientHost() + ":" + n.clientPort());
    }
}
