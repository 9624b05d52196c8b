package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * VARVE: the server's own commands, with no Redis counterpart. {@code VARVE DELIVER <channel> <message>}
 * and {@code VARVE SDELIVER <shardchannel> <message>} deliver a message to this node's subscribers only;
 * cluster nodes send them to each other to carry PUBLISH and SPUBLISH across the cluster (docs/cluster.md,
 * "Pub/sub"), as Redis Cluster carries them on its bus. A client may send them too: they do no more than a
 * PUBLISH on this node would. {@code VARVE CLUSTER ...} are a cluster's topology operations
 * ({@link VarveClusterCommands}).
 */
final class VarveCommands {

    private VarveCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("varve", -2, "pubsub noscript loading stale", (CoordinatedHandler) VarveCommands::varve);
    }

    private static void varve(CommandCall c, Dispatcher d) {
        if (c.argCount() == 4 && c.argIs(1, "deliver")) {
            c.reply().integer(d.pubSub().publish(c.arg(2), c.arg(3)));
        } else if (c.argCount() == 4 && c.argIs(1, "sdeliver")) {
            c.reply().integer(d.pubSub().publishShard(c.arg(2), c.arg(3)));
        } else if (c.argCount() >= 3 && c.argIs(1, "cluster")) {
            VarveClusterCommands.varveCluster(c);
        } else {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + c.argText(1)
                    + "'. Try VARVE HELP.");
        }
    }
}
