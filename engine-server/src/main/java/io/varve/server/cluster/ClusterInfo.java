package io.varve.server.cluster;

import io.varve.replication.ReplicatedDb;
import io.varve.server.replica.GroupMember;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * INFO in cluster mode. Replication: {@code role} is {@code master} when this node leads at least one group
 * (Redis's name for a node serving slots), then one line per group. Cluster (after {@code cluster_enabled}):
 * the state, epoch, how many groups and slots this node leads, pub/sub messages the links to other nodes
 * dropped, and the same line per group. A group's line: its slot ranges, this node's Raft role in it, the
 * leader's client address, term and indexes.
 */
final class ClusterInfo {

    private ClusterInfo() {
    }

    static Map<String, Object> replicationFields(ClusterTopology topology, GroupMember[] members) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("role", led(members) > 0 ? "master" : "slave");
        f.put("cluster_groups", members.length);
        f.put("cluster_groups_led", led(members));
        f.put("cluster_epoch", topology.slots().epoch());
        f.put("raft_address", topology.self().raft());
        for (int g = 0; g < members.length; g++) {
            f.put("raft_group_" + g, groupLine(topology, members, g));
        }
        return f;
    }

    static Map<String, Object> clusterFields(ClusterTopology topology, GroupMember[] members, long pubsubDropped) {
        boolean everyGroupLed = true;
        int slotsLed = 0;
        for (int g = 0; g < members.length; g++) {
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
        for (int g = 0; g < members.length; g++) {
            f.put("cluster_group_" + g, groupLine(topology, members, g));
        }
        return f;
    }

    private static int led(GroupMember[] members) {
        int led = 0;
        for (GroupMember member : members) {
            led += member.isLeader() ? 1 : 0;
        }
        return led;
    }

    private static String groupLine(ClusterTopology topology, GroupMember[] members, int g) {
        ReplicatedDb replicated = members[g].replicated();
        ReplicatedDb.MemberStatus status = replicated.status();
        StringBuilder ranges = new StringBuilder();
        topology.slots().rangesOf(g).forEach(r -> ranges.append(ranges.isEmpty() ? "" : "+")
                .append(r.first()).append('-').append(r.last()));
        return "name=" + ClusterTopology.groupName(g)
                + ",slots=" + ranges
                + ",role=" + status.role()
                + ",leader=" + replicated.leader().flatMap(topology::clientAddressOf).orElse("")
                + ",term=" + status.term()
                + ",commit=" + status.commitIndex()
                + ",applied=" + status.appliedIndex()
                + ",last=" + status.lastLogIndex()
                + ",snapshots_installed=" + replicated.snapshotsInstalled();
    }
}
