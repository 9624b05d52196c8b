package io.varve.server.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The cluster's shape as this node serves it: every node (Raft and client addresses, node id), the slot map
 * and each group's preferred leader, taken from the {@link TopologyState} the metadata group applied here last
 * (docs/cluster.md, "Topology"). Immutable; a new one replaces it with every applied change.
 *
 * @param nodes     every node, ordered by Raft address
 * @param slots     which group owns each slot, at the state's epoch
 * @param preferred the Raft address of the node each group prefers as its leader (index = group)
 * @param members   the Raft addresses of each group's members (index = group)
 */
record ClusterTopology(List<Node> nodes, SlotMap slots, List<String> preferred, List<List<String>> members) {

    /**
     * @param raft       its Raft address, also its identity in every group
     * @param clientHost where clients reach it (RESP)
     * @param clientPort where clients reach it (RESP)
     * @param id         its Redis Cluster node id (SHA-1 of the Raft address)
     * @param self       whether it is this node
     */
    record Node(String raft, String clientHost, int clientPort, String id, boolean self) {
    }

    /**
     * The shape {@code state} gives, seen from the node at {@code selfRaft}. A node the cluster forgot (CLUSTER
     * FORGET) is no longer in the state; it still lists itself, at {@code selfClient}, so it can answer.
     */
    static ClusterTopology of(TopologyState state, String selfRaft, String selfClient) {
        List<Node> nodes = new ArrayList<>();
        boolean selfListed = false;
        for (TopologyState.Node n : state.nodes()) {
            nodes.add(node(n, n.raft().equals(selfRaft)));
            selfListed |= n.raft().equals(selfRaft);
        }
        if (!selfListed) {
            nodes.add(node(new TopologyState.Node(selfRaft, selfClient), true));
        }
        List<String> preferred = state.groups().stream().map(TopologyState.Group::preferredLeader).toList();
        List<List<String>> members = state.groups().stream().map(TopologyState.Group::members).toList();
        return new ClusterTopology(List.copyOf(nodes), state.slotMap(), preferred, members);
    }

    private static Node node(TopologyState.Node n, boolean self) {
        int colon = n.client().lastIndexOf(':');
        return new Node(n.raft(), n.client().substring(0, colon), Integer.parseInt(n.client().substring(colon + 1)),
                n.id(), self);
    }

    /** Whether the node at {@code raft} is a member of group {@code group}. */
    boolean isMember(int group, String raft) {
        return group >= 0 && group < members.size() && members.get(group).contains(raft);
    }

    /** The Raft group name of group {@code g}. */
    static String groupName(int g) {
        return "slots-" + g;
    }

    int groups() {
        return preferred.size();
    }

    /** The node the topology names as group {@code group}'s preferred leader. */
    Node preferredLeader(int group) {
        String raft = preferred.get(group);
        return nodes.stream().filter(n -> n.raft().equals(raft)).findFirst().orElseThrow();
    }

    Node self() {
        return nodes.stream().filter(Node::self).findFirst().orElseThrow();
    }

    /** The node with this id, Raft address or client address. */
    Optional<Node> find(String name) {
        return nodes.stream().filter(n -> n.id().equalsIgnoreCase(name) || n.raft().equals(name)
                || (n.clientHost() + ":" + n.clientPort()).equals(name)).findFirst();
    }

    /** The client address {@code host:port} of the node at Raft address {@code raft}. */
    Optional<String> clientAddressOf(String raft) {
        return nodes.stream().filter(n -> n.raft().equals(raft)).findFirst()
                .map(n -> n.clientHost() + ":" + n.clientPort());
    }
}
