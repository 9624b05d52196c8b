package io.varve.server.cluster;

import io.varve.replication.ReplicatedDb;
import io.varve.server.command.ClusterView;
import io.varve.server.command.ServedSlots;
import io.varve.server.replica.GroupMember;
import io.varve.server.replica.RaftReplica;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * INFO in cluster mode, and the view the CLUSTER commands render. Replication: {@code role} is {@code master} when this node leads at least one group
 * (Redis's name for a node serving slots), then one line per group. Cluster (after {@code cluster_enabled}):
 * the state, epoch, how many groups and slots this node leads, pub/sub messages the links to other nodes
 * dropped, and the same line per group. A group's line: its slot ranges, this node's Raft role in it, the
 * leader's client address, the preferred leader's, the members' (the topology's list), term and indexes.
 * Both sections name the leader of the metadata group, the slot change and the replica move in progress.
 * It also says which slots a node serves ({@link #servedSlots}), the keyless commands' share.
 */
final class ClusterInfo {

    private ClusterInfo() {
    }

    /**
     * The cluster as CLUSTER SLOTS, SHARDS and NODES describe it: each group's ranges, members and leader. For a
     * group this node does not replicate it hears no leader, so it names the preferred one, the best it knows.
     */
    static ClusterView view(ClusterTopology shape, ClusterGroups groups) {
        String self = shape.self().raft();
        List<ClusterView.Shard> shards = new ArrayList<>();
        for (int g = 0; g < shape.groups(); g++) {
            GroupMember member = groups.member(g);
            int group = g;
            List<String> memberIds = shape.nodes().stream().filter(n -> shape.isMember(group, n.raft()))
                    .map(ClusterTopology.Node::id).toList();
            Optional<String> leaderRaft = member != null ? member.replicated().leader()
                    : shape.isMember(g, self) ? Optional.empty() : Optional.of(shape.preferred().get(g));
            String leader = leaderRaft.filter(raft -> shape.clientAddressOf(raft).isPresent())
                    .map(RaftReplica::nodeId).orElse(null);
            shards.add(new ClusterView.Shard(shape.slots().rangesOf(g), leader, memberIds));
        }
        List<ClusterView.Node> nodes = new ArrayList<>();
        for (ClusterTopology.Node n : shape.nodes()) {
            nodes.add(new ClusterView.Node(n.id(), n.clientHost(), n.clientPort(), n.self()));
        }
        return new ClusterView(nodes, shards, shape.slots().epoch());
    }

    static Map<String, Object> replicationFields(ClusterTopology topology, ClusterGroups groups,
                                                 MetadataGroup meta) {
        GroupMember[] members = groups.members();
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("role", led(members) > 0 ? "master" : "slave");
        f.put("cluster_groups", members.length);
        f.put("cluster_groups_led", led(members));
        f.put("cluster_epoch", topology.slots().epoch());
        metadataFields(f, topology, meta);
        f.put("raft_address", topology.self().raft());
        for (int g = 0; g < members.length; g++) {
            f.put("raft_group_" + g, groupLine(topology, groups, g));
        }
        return f;
    }

    static Map<String, Object> clusterFields(ClusterTopology topology, ClusterGroups groups, MetadataGroup meta,
                                             long pubsubDropped) {
        GroupMember[] members = groups.members();
        boolean everyGroupLed = true;
        int slotsLed = 0;
        for (int g = 0; g < members.length; g++) {
            if (members[g] == null) {
                // not open yet here, or not replicated here at all (moved away): then its leader is not heard
                everyGroupLed &= !topology.isMember(g, topology.self().raft());
                continue;
            }
            everyGroupLed &= members[g].replicated().leader().isPresent();
            if (members[g].isLeader()) {
                slotsLed += topology.slots().rangesOf(g).stream().mapToInt(r -> r.count()).sum();
            }
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("cluster_state", everyGroupLed ? "ok" : "fail");
        f.put("cluster_current_epoch", topology.slots().epoch());
        f.put("cluster_known_nodes", topology.nodes().size());
        f.put("cluster_groups", members.length);
        f.put("cluster_groups_led", led(members));
        f.put("cluster_slots_led", slotsLed);
        f.put("cluster_pubsub_dropped", pubsubDropped);
        metadataFields(f, topology, meta);
        for (int g = 0; g < members.length; g++) {
            f.put("cluster_group_" + g, groupLine(topology, groups, g));
        }
        return f;
    }

    /**
     * The metadata group's leader, the slot change in progress ({@code none}, or its id, phase, target, size)
     * and the replica move in progress ({@code none}, or its id, group, and the client addresses it moves from
     * and to).
     */
    private static void metadataFields(Map<String, Object> f, ClusterTopology topology, MetadataGroup meta) {
        if (meta == null) {
            return;
        }
        f.put("cluster_metadata_leader", meta.leader().flatMap(topology::clientAddressOf).orElse(""));
        TopologyState.Change change = meta.applied().change();
        f.put("cluster_slot_change", change == null ? "none" : "id=" + change.id() + ",phase="
                + change.phase().name().toLowerCase(java.util.Locale.ROOT) + ",target=" + change.target()
                + ",slots=" + change.slots().cardinality());
        TopologyState.ReplicaMove move = meta.applied().move();
        f.put("cluster_replica_move", move == null ? "none" : "id=" + move.id() + ",group=" + move.group()
                + ",from=" + topology.clientAddressOf(move.from()).orElse(move.from())
                + ",to=" + topology.clientAddressOf(move.to()).orElse(move.to()));
    }

    private static String ranges(java.util.BitSet slots) {
        StringBuilder out = new StringBuilder();
        int s = slots.nextSetBit(0);
        while (s >= 0) {
            int end = slots.nextClearBit(s);
            out.append(out.isEmpty() ? "" : "+").append(s).append('-').append(end - 1);
            s = slots.nextSetBit(end);
        }
        return out.toString();
    }

    private static int led(GroupMember[] members) {
        int led = 0;
        for (GroupMember member : members) {
            led += member != null && member.isLeader() ? 1 : 0;
        }
        return led;
    }

    private static String groupLine(ClusterTopology topology, ClusterGroups groups, int g) {
        GroupMember[] members = groups.members();
        String memberList = g < topology.groups() ? topology.nodes().stream()
                .filter(n -> topology.isMember(g, n.raft())).map(n -> n.clientHost() + ":" + n.clientPort())
                .collect(java.util.stream.Collectors.joining("|")) : "";
        if (members[g] == null) {
            // a split's group not open yet here, or one whose replica moved away from this node
            return "name=" + ClusterTopology.groupName(g) + ",role="
                    + (topology.isMember(g, topology.self().raft()) ? "opening" : "none") + ",members=" + memberList;
        }
        ReplicatedDb replicated = members[g].replicated();
        ReplicatedDb.MemberStatus status = replicated.status();
        StringBuilder ranges = new StringBuilder();
        topology.slots().rangesOf(g).forEach(r -> ranges.append(ranges.isEmpty() ? "" : "+")
                .append(r.first()).append('-').append(r.last()));
        return "name=" + ClusterTopology.groupName(g)
                + ",slots=" + ranges
                + ",role=" + status.role()
                + ",leader=" + replicated.leader().flatMap(topology::clientAddressOf).orElse("")
                + ",preferred=" + (g < topology.groups()
                        ? topology.clientAddressOf(topology.preferred().get(g)).orElse("") : "")
                + ",members=" + memberList
                + ",accepts=" + ranges(groups.gate(g).accepted())
                + ",term=" + status.term()
                + ",commit=" + status.commitIndex()
                + ",applied=" + status.appliedIndex()
                + ",last=" + status.lastLogIndex()
                + ",snapshots_installed=" + replicated.snapshotsInstalled();
    }

    /**
     * The slots a node serves (docs/cluster.md, "Keys a node counts, lists and flushes"): those of the groups
     * it leads; leading none, those of the groups led by the node that CLUSTER NODES shows it as a replica of
     * (the leader of its first group with a known leader), as a Redis Cluster replica holds its master's
     * slots. {@code slotsOfGroup}: each group's slots, from {@code topology}'s map.
     */
    static ServedSlots servedSlots(ClusterTopology topology, ClusterGroups groups, BitSet[] slotsOfGroup) {
        List<BitSet> led = groupsLedBy(topology.self().raft(), topology, groups, slotsOfGroup);
        if (!led.isEmpty()) {
            return ServedSlots.of(led, true);
        }
        for (GroupMember member : groups.members()) {
            String leader = member == null ? null : member.replicated().leader().orElse(null);
            if (leader != null && topology.clientAddressOf(leader).isPresent()) {
                return ServedSlots.of(groupsLedBy(leader, topology, groups, slotsOfGroup), false);
            }
        }
        return ServedSlots.of(List.of(), false);
    }

    private static List<BitSet> groupsLedBy(String raft, ClusterTopology topology, ClusterGroups groups,
                                            BitSet[] slots) {
        List<BitSet> led = new ArrayList<>();
        GroupMember[] members = groups.members();
        for (int g = 0; g < Math.min(members.length, slots.length); g++) {
            if (members[g] == null) {
                continue;
            }
            boolean leads = raft.equals(topology.self().raft()) ? members[g].isLeader()
                    : members[g].replicated().leader().map(raft::equals).orElse(false);
            if (leads) {
                led.add(slots[g]);
            }
        }
        return led;
    }
}
