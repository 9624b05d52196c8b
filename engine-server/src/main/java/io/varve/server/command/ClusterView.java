package io.varve.server.command;

import java.util.List;

/**
 * The cluster as one replicated node sees it, for the CLUSTER commands: every node with its client address,
 * and the shards — each a Raft group, the slot ranges it owns, its members and the leader this node knows.
 * A node is described to clients as the master of the ranges of the groups it leads (docs/cluster.md).
 *
 * @param nodes  every node, in a stable order
 * @param shards every group, in a stable order
 * @param epoch  the topology's epoch (CLUSTER INFO's {@code cluster_current_epoch})
 */
public record ClusterView(List<Node> nodes, List<Shard> shards, long epoch) {

    /**
     * @param id     40 hex digits, stable for the node's Raft address (as Redis Cluster node ids are)
     * @param host   client (RESP) host
     * @param port   client (RESP) port
     * @param myself whether it is the node answering
     */
    public record Node(String id, String host, int port, boolean myself) {
    }

    /** Slots {@code first} to {@code last}, both included. */
    public record SlotRange(int first, int last) {
        public int count() {
            return last - first + 1;
        }
    }

    /**
     * @param ranges    the slot ranges the group owns, ascending
     * @param leaderId  the id of the node leading the group, as this node knows; null when none is known
     * @param memberIds the ids of the group's members, in the nodes' order
     */
    public record Shard(List<SlotRange> ranges, String leaderId, List<String> memberIds) {
        public int slotCount() {
            return ranges.stream().mapToInt(SlotRange::count).sum();
        }
    }

    public Node myself() {
        return nodes.stream().filter(Node::myself).findFirst().orElseThrow();
    }

    public Node node(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElse(null);
    }

    /** Whether {@code node} leads no shard: CLUSTER NODES shows it as a replica, the others as masters. */
    public boolean shownAsReplica(Node node) {
        return ledBy(node).isEmpty();
    }

    /** The shards {@code node} leads. */
    public List<Shard> ledBy(Node node) {
        return shards.stream().filter(s -> node.id().equals(s.leaderId())).toList();
    }
}
