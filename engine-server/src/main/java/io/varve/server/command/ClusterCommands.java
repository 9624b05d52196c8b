package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.types.ServedKeys;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The Redis Cluster commands a replicated server answers: READONLY and READWRITE (whether this connection
 * may read from a replica that is not the leader) and CLUSTER KEYSLOT, COUNTKEYSINSLOT, GETKEYSINSLOT,
 * SLOTS, SHARDS, NODES, MYID and INFO, rendered from the {@link ClusterView} routing gives: each range is
 * served by the leader of the group owning it, the group's other members are its replicas, and a node is
 * the master of the ranges of the groups it leads (docs/cluster.md). So cluster clients (Lettuce's, Jedis's,
 * redis-cli -c) find the leaders themselves. A standalone server refuses them as Redis does without
 * cluster support.
 */
final class ClusterCommands {

    private static final String DISABLED = "ERR This instance has cluster support disabled";

    private ClusterCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("readonly", 1, "loading stale fast", c -> replicaReads(c, true));
        b.add("readwrite", 1, "loading stale fast", c -> replicaReads(c, false));
        b.add("cluster", -2, "", ClusterCommands::cluster);
    }

    private static void replicaReads(CommandCall c, boolean allowed) {
        if (!c.server().routing().replicated()) {
            throw new RedisError(DISABLED);
        }
        c.connection().replicaReads(allowed);
        c.reply().ok();
    }

    private static void cluster(CommandCall c) {
        if (c.argIs(1, "keyslot") && c.argCount() == 3) {
            c.reply().integer(KeySlot.of(c.arg(2)));
            return;
        }
        ClusterView view = c.server().routing().cluster();
        if (view == null) {
            throw new RedisError(DISABLED);
        }
        if (c.argCount() == 2 && c.argIs(1, "slots")) {
            slots(c, view);
        } else if (c.argCount() == 2 && c.argIs(1, "shards")) {
            ClusterShardsReply.write(c.reply(), view);
        } else if (c.argCount() == 2 && c.argIs(1, "nodes")) {
            c.reply().bulk(nodes(view));
        } else if (c.argCount() == 2 && c.argIs(1, "myid")) {
            c.reply().bulk(view.myself().id());
        } else if (c.argCount() == 2 && c.argIs(1, "info")) {
            c.reply().bulk(info(view));
        } else if (c.argIs(1, "failover")) {
            VarveClusterCommands.failover(c);
        } else if (c.argIs(1, "meet")) {
            VarveClusterCommands.meet(c);
        } else if (c.argIs(1, "forget")) {
            VarveClusterCommands.forget(c);
        } else if (c.argCount() == 3 && c.argIs(1, "countkeysinslot")) {
            int slot = slotArgument(c);
            c.reply().integer(c.server().routing().servedSlots().serves(slot)
                    ? ServedKeys.count(c.keyspace(), oneSlot(slot)) : 0);
        } else if (c.argCount() == 4 && c.argIs(1, "getkeysinslot")) {
            int slot = slotArgument(c);
            long count = Args.parseLong(c.arg(3));
            if (count < 0) {
                throw new RedisError("ERR Invalid number of keys");
            }
            List<byte[]> keys = keysInSlot(c, slot, count);
            c.reply().arrayHeader(keys.size());
            keys.forEach(c.reply()::bulk);
        } else {
            throw new RedisError("ERR unknown subcommand '" + c.argText(1)
                    + "'. Try CLUSTER HELP.");
        }
    }

    private static int slotArgument(CommandCall c) {
        Long slot = Args.tryParseLong(c.arg(2));
        if (slot == null || slot < 0 || slot >= KeySlot.SLOTS) {
            throw new RedisError("ERR Invalid slot");
        }
        return slot.intValue();
    }

    /**
     * Up to {@code limit} live keys of {@code slot} in this node's state; none for a slot this node does not
     * serve, as a Redis Cluster node holds none of them. A cluster node's keys carry their slot, so this
     * reads the slot's key range only.
     */
    private static List<byte[]> keysInSlot(CommandCall c, int slot, long limit) {
        if (!c.server().routing().servedSlots().serves(slot)) {
            return List.of();
        }
        return ServedKeys.list(c.keyspace(), oneSlot(slot), limit);
    }

    private static java.util.BitSet oneSlot(int slot) {
        java.util.BitSet slots = new java.util.BitSet(KeySlot.SLOTS);
        slots.set(slot);
        return slots;
    }

    /**
     * Each range whose group has a known leader: the leader first, then the group's members that lead no group
     * (a client such as redis-py takes a node listed as a replica anywhere for a replica everywhere).
     */
    private static void slots(CommandCall c, ClusterView view) {
        record Served(ClusterView.SlotRange range, ClusterView.Shard shard) {
        }
        List<Served> served = new ArrayList<>();
        for (ClusterView.Shard shard : view.shards()) {
            if (shard.leaderId() != null && view.node(shard.leaderId()) != null) {
                shard.ranges().forEach(r -> served.add(new Served(r, shard)));
            }
        }
        served.sort(Comparator.comparingInt(s -> s.range().first()));
        c.reply().arrayHeader(served.size());
        for (Served s : served) {
            List<ClusterView.Node> replicas = s.shard().memberIds().stream().map(view::node)
                    .filter(n -> n != null && !n.id().equals(s.shard().leaderId()) && view.shownAsReplica(n))
                    .toList();
            c.reply().arrayHeader(3 + replicas.size()); // first, last, the leader, its replicas
            c.reply().integer(s.range().first());
            c.reply().integer(s.range().last());
            node(c, view.node(s.shard().leaderId()));
            replicas.forEach(n -> node(c, n));
        }
    }

    private static void node(CommandCall c, ClusterView.Node n) {
        c.reply().arrayHeader(3);
        c.reply().bulk(n.host());
        c.reply().integer(n.port());
        c.reply().bulk(n.id());
    }

    /**
     * Redis's CLUSTER NODES lines: id, address, flags, master, ping/pong times, epoch, link, slots. A node
     * leading groups is the master of their ranges; one leading none is shown as a replica of the leader of
     * its first group (Redis Cluster's model has each node either a master or one master's replica).
     */
    private static String nodes(ClusterView view) {
        StringBuilder out = new StringBuilder();
        for (ClusterView.Node n : view.nodes()) {
            List<ClusterView.Shard> led = view.ledBy(n);
            String masterId = led.isEmpty() ? masterOf(view, n) : null;
            boolean master = masterId == null;
            String flags = (n.myself() ? "myself," : "") + (master ? "master" : "slave");
            out.append(n.id()).append(' ').append(n.host()).append(':').append(n.port()).append('@').append(0)
                    .append(' ').append(flags).append(' ').append(master ? "-" : masterId)
                    .append(" 0 0 ").append(view.epoch()).append(" connected");
            led.stream().flatMap(s -> s.ranges().stream())
                    .sorted(Comparator.comparingInt(ClusterView.SlotRange::first))
                    .forEach(r -> out.append(' ').append(r.first() == r.last() ? Integer.toString(r.first())
                            : r.first() + "-" + r.last()));
            out.append('\n');
        }
        return out.toString();
    }

    private static String masterOf(ClusterView view, ClusterView.Node n) {
        for (ClusterView.Shard s : view.shards()) {
            if (s.memberIds().contains(n.id()) && s.leaderId() != null && view.node(s.leaderId()) != null) {
                return s.leaderId();
            }
        }
        return null;
    }

    private static String info(ClusterView view) {
        int assigned = view.shards().stream().mapToInt(ClusterView.Shard::slotCount).sum();
        int ok = view.shards().stream().filter(s -> s.leaderId() != null)
                .mapToInt(ClusterView.Shard::slotCount).sum();
        long masters = view.nodes().stream().filter(n -> !view.ledBy(n).isEmpty()).count();
        boolean up = ok == KeySlot.SLOTS;
        return "cluster_enabled:1\r\n"
                + "cluster_state:" + (up ? "ok" : "fail") + "\r\n"
                + "cluster_slots_assigned:" + (up ? assigned : ok) + "\r\n"
                + "cluster_slots_ok:" + ok + "\r\n"
                + "cluster_slots_pfail:0\r\n"
                + "cluster_slots_fail:" + (up ? 0 : assigned - ok) + "\r\n"
                + "cluster_known_nodes:" + view.nodes().size() + "\r\n"
                + "cluster_size:" + masters + "\r\n"
                + "cluster_current_epoch:" + view.epoch() + "\r\n"
                + "cluster_my_epoch:" + view.epoch() + "\r\n";
    }
}
