package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * The Redis Cluster commands a replicated server answers: READONLY and READWRITE (whether this connection
 * may read from a replica that is not the leader) and CLUSTER KEYSLOT. A standalone server refuses them as
 * Redis does without cluster support.
 */
final class ClusterCommands {

    private static final String DISABLED = "ERR This instance has cluster support disabled";

    private ClusterCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("readonly", 1, "fast", c -> replicaReads(c, true));
        b.add("readwrite", 1, "fast", c -> replicaReads(c, false));
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
        if (!c.server().routing().replicated()) {
            throw new RedisError(DISABLED);
        }
        throw new RedisError("ERR unknown subcommand '" + c.argText(1) + "'. Try CLUSTER KEYSLOT.");
    }
}
