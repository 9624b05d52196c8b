package io.varve.server.cluster;

import io.varve.replication.ReplicatedDb;
import io.varve.server.replica.GroupMember;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * INFO replication in cluster mode: {@code role} is {@code master} when this node leads at least one group
 * (Redis's name for a node serving slots), then one line per group with its slot ranges, this node's Raft
 * role in it, the leader's client address, term and indexes.
 */
final class ClusterInfo {

    private ClusterInfo() {
    }

    static Map<String, Object> replicationFields(ClusterTopology topology, GroupMember[] members) {
        int led = 0;
        for (GroupMember member : members) {
            led += member.isLeader() ? 1 : 0;
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("role", led > 0 ? "master" : "slave");
        f.put("cluster_groups", members.length);
        f.put("cluster_groups_led", led);
        f.put("cluster_epoch", topology.slots().epoch());
        f.put("raft_address", topology.self().raft());
        for (int g = 0; g < members.length; g++) {
            ReplicatedDb replicated = members[g].replicated();
            ReplicatedDb.MemberStatus status = replicated.status();
            StringBuilder ranges = new StringBuilder();
            topology.slots().rangesOf(g).forEach(r -> ranges.append(ranges.isEmpty() ? "" : "+")
                    .append(r.first()).append('-').append(r.last()));
            f.put("raft_group_" + g, "name=" + ClusterTopology.groupName(g)
                    + ",slots=" + ranges
                    + ",role=" + status.role()
                    + ",leader=" + replicated.leader().flatMap(topology::clientAddressOf).orElse("")
                    + ",term=" + status.term()
                    + ",commit=" + status.commitIndex()
                    + ",applied=" + status.appliedIndex()
                    + ",last=" + status.lastLogIndex());
        }
        return f;
    }
}
