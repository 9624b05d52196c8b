package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * {@code VARVE CLUSTER MOVESLOTS <first> <last> <group>}, {@code VARVE CLUSTER SPLIT <group>} and
 * {@code VARVE CLUSTER LEADER <group> <node>}, and Redis's {@code CLUSTER FAILOVER}: the online topology
 * operations of a cluster node (docs/operations.md), parsed here and run by the node's
 * {@link ClusterOperations}. A trailing {@code FORWARDED} marks a command one node handed to the leader of
 * the metadata group.
 */
final class VarveClusterCommands {

    private VarveClusterCommands() {
    }

    /** VARVE CLUSTER ...: argument 1 is CLUSTER. */
    static void varveCluster(CommandCall c) {
        ClusterOperations operations = operations(c);
        int count = c.argCount();
        boolean forwarded = count > 3 && c.argIs(count - 1, "forwarded");
        int args = forwarded ? count - 1 : count;
        String password = c.server().requirePass();
        if (args == 6 && c.argIs(2, "moveslots")) {
            c.reply().simple(operations.moveSlots(slot(c, 3), slot(c, 4), number(c, 5), password, forwarded));
        } else if (args == 4 && c.argIs(2, "split")) {
            c.reply().simple(operations.split(number(c, 3), password, forwarded));
        } else if (args == 5 && c.argIs(2, "leader")) {
            c.reply().simple(operations.preferLeader(number(c, 3), c.argText(4), password, forwarded));
        } else {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for 'VARVE CLUSTER "
                    + (count > 2 ? c.argText(2) : "") + "'. Try VARVE HELP.");
        }
    }

    /** CLUSTER FAILOVER [FORCE|TAKEOVER]: every form goes through the metadata group's consensus. */
    static void failover(CommandCall c) {
        if (c.argCount() > 3 || (c.argCount() == 3 && !c.argIs(2, "force") && !c.argIs(2, "takeover"))) {
            throw new RedisError("ERR syntax error");
        }
        c.reply().simple(operations(c).failover(c.server().requirePass()));
    }

    private static ClusterOperations operations(CommandCall c) {
        if (c.server().routing() instanceof ClusterOperations operations) {
            return operations;
        }
        throw new RedisError("ERR This instance has cluster support disabled");
    }

    private static int slot(CommandCall c, int i) {
        Long slot = Args.tryParseLong(c.arg(i));
        if (slot == null || slot < 0 || slot >= KeySlot.SLOTS) {
            throw new RedisError("ERR Invalid or out of range slot");
        }
        return slot.intValue();
    }

    private static int number(CommandCall c, int i) {
        Long n = Args.tryParseLong(c.arg(i));
        if (n == null || n < 0 || n > Integer.MAX_VALUE) {
            throw new RedisError("ERR value is not an integer or out of range");
        }
        return n.intValue();
    }
}
