package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * The Redis Cluster commands a replicated server answers: READONLY and READWRITE (whether this connection
 * may read from a replica that is not the leader) and CLUSTER KEYSLOT, SLOTS, NODES, MYID and INFO, which
 * describe the group as one shard: the leader serves slots 0-16383 and the other members replicate it, so
 * cluster clients (Lettuce's, Jedis's) find the leader themselves. A standalone server refuses them as Redis
 * does without cluster support.
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
        } else if (c.argCount() == 2 && c.argIs(1, "nodes")) {
            c.reply().bulk(nodes(view));
        } else if (c.argCount() == 2 && c.argIs(1, "myid")) {
            c.reply().bulk(view.myself().id());
        } else if (c.argCount() == 2 && c.argIs(1, "info")) {
            c.reply().bulk(info(view));
        } else {
            throw new RedisError("ERR unknown subcommand '" + c.argText(1)
                    + "'. Try CLUSTER KEYSLOT, SLOTS, NODES, MYID or INFO.");
        }
    }

    /** One range, 0-16383, served by the leader with the others as its replicas; empty with no leader. */
    private static void slots(CommandCall c, ClusterView view) {
        ClusterView.Member leader = view.leader();
        if (leader == null) {
            c.reply().arrayHeader(0);
            return;
        }
        c.reply().arrayHeader(1);
        c.reply().arrayHeader(2 + view.members().size());
        c.reply().integer(0);
        c.reply().integer(KeySlot.SLOTS - 1);
        node(c, leader);
        for (ClusterView.Member m : view.members()) {
            if (m != leader) {
                node(c, m);
            }
        }
    }

    private static void node(CommandCall c, ClusterView.Member m) {
        c.reply().arrayHeader(3);
        c.reply().bulk(m.host());
        c.reply().integer(m.port());
        c.reply().bulk(m.id());
    }

    /** Redis's CLUSTER NODES lines: id, address, flags, master, ping/pong times, epoch, link, slots. */
    private static String nodes(ClusterView view) {
        ClusterView.Member leader = view.leader();
        StringBuilder out = new StringBuilder();
        for (ClusterView.Member m : view.members()) {
            String flags = (m.myself() ? "myself," : "") + (m.leader() ? "master" : "slave");
            String master = m.leader() || leader == null ? "-" : leader.id();
            out.append(m.id()).append(' ').append(m.host()).append(':').append(m.port()).append('@').append(0)
                    .append(' ').append(flags).append(' ').append(master).append(" 0 0 0 connected");
            if (m.leader()) {
                out.append(" 0-").append(KeySlot.SLOTS - 1);
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static String info(ClusterView view) {
        boolean up = view.leader() != null;
        return "cluster_enabled:1\r\n"
                + "cluster_state:" + (up ? "ok" : "fail") + "\r\n"
                + "cluster_slots_assigned:" + (up ? KeySlot.SLOTS : 0) + "\r\n"
                + "cluster_slots_ok:" + (up ? KeySlot.SLOTS : 0) + "\r\n"
                + "cluster_known_nodes:" + view.members().size() + "\r\n"
                + "cluster_size:" + (up ? 1 : 0) + "\r\n";
    }
}
