package io.varve.server.command;

import io.varve.server.resp.Reply;

import java.util.ArrayList;
import java.util.List;

/**
 * CLUSTER SHARDS in Redis 7's shape: one map per group with its {@code slots} (range bounds, flattened) and
 * its {@code nodes}, the leader first as {@code master}, then as {@code replica} the members that lead no
 * group ({@link ClusterView#shownAsReplica}): Redis Cluster clients take each node to be a master or a
 * replica, never both. A group with no known leader lists those members only, so a client sees the range as
 * unserved. A node that is a member of no group (just met, CLUSTER MEET) is a shard of its own with no slots,
 * as Redis shows a master holding none.
 */
final class ClusterShardsReply {

    private ClusterShardsReply() {
    }

    static void write(Reply reply, ClusterView view) {
        List<ClusterView.Node> inNoGroup = view.nodes().stream()
                .filter(n -> view.shards().stream().noneMatch(s -> s.memberIds().contains(n.id()))).toList();
        reply.arrayHeader(view.shards().size() + inNoGroup.size());
        for (ClusterView.Node n : inNoGroup) {
            reply.mapHeader(2);
            reply.bulk("slots");
            reply.arrayHeader(0);
            reply.bulk("nodes");
            reply.arrayHeader(1);
            node(reply, n, true);
        }
        for (ClusterView.Shard shard : view.shards()) {
            reply.mapHeader(2);
            reply.bulk("slots");
            reply.arrayHeader(2L * shard.ranges().size());
            for (ClusterView.SlotRange r : shard.ranges()) {
                reply.integer(r.first());
                reply.integer(r.last());
            }
            reply.bulk("nodes");
            List<ClusterView.Node> members = new ArrayList<>();
            ClusterView.Node leader = shard.leaderId() == null ? null : view.node(shard.leaderId());
            if (leader != null) {
                members.add(leader);
            }
            for (String id : shard.memberIds()) {
                ClusterView.Node n = view.node(id);
                if (n != null && n != leader && view.shownAsReplica(n)) {
                    members.add(n);
                }
            }
            reply.arrayHeader(members.size());
            for (ClusterView.Node n : members) {
                node(reply, n, n == leader);
            }
        }
    }

    private static void node(Reply reply, ClusterView.Node n, boolean master) {
        reply.mapHeader(7);
        reply.bulk("id");
        reply.bulk(n.id());
        reply.bulk("port");
        reply.integer(n.port());
        reply.bulk("ip");
        reply.bulk(n.host());
        reply.bulk("endpoint");
        reply.bulk(n.host());
        reply.bulk("role");
        reply.bulk(master ? "master" : "replica");
        reply.bulk("replication-offset");
        reply.integer(0);
        reply.bulk("health");
        reply.bulk("online");
    }
}
