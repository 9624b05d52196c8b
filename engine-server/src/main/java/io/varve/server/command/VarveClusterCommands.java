package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * {@code VARVE CLUSTER MOVESLOTS <first> <last> <group>}, {@code VARVE CLUSTER SPLIT <group>} and
 * {@code VARVE CLUSTER LEADER <group> <node>}, {@code VARVE CLUSTER MOVE-REPLICA <group> <from> <to>}, and
 * Redis's {@code CLUSTER FAILOVER}, {@code MEET} and {@code FORGET}: the online topology operations of a
 * cluster node (docs/operations.md), parsed here and run by the node's {@link ClusterOperations}. A trailing
 * {@code FORWARDED} marks a command one node handed to the leader of the metadata group. Between nodes:
 * {@code VARVE CLUSTER JOINSTATE} is what a node asks the node it meets, {@code APPLIED <group>} what a
 * group's leader asks the node its replica moves to, {@code REPLICA-MOVED <epoch>} what it tells the
 * metadata leader once the group's configuration changed, {@code GATE <group>} what a metadata leader with no
 * member of a group asks its members of a slot change's progress.
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
        } else if (args == 5 && c.argIs(2, "meet")) {
            c.reply().simple(operations.meet(c.argText(3), port(c, 4), password, forwarded));
        } else if (args == 4 && c.argIs(2, "forget")) {
            c.reply().simple(operations.forget(c.argText(3), password, forwarded));
        } else if (count == 3 && c.argIs(2, "joinstate")) {
            c.reply().bulk(operations.joinState());
        } else if (args == 6 && c.argIs(2, "move-replica")) {
            c.reply().simple(operations.moveReplica(number(c, 3), c.argText(4), c.argText(5), password, forwarded));
        } else if (args == 4 && c.argIs(2, "replica-moved")) {
            c.reply().simple(operations.replicaMoved(number(c, 3), password, forwarded));
        } else if (count == 4 && c.argIs(2, "applied")) {
            c.reply().integer(operations.appliedIndex(number(c, 3)));
        } else if (count == 4 && c.argIs(2, "gate")) {
            c.reply().integer(operations.lastSlotChange(number(c, 3)));
        } else {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for 'VARVE CLUSTER "
                    + (count > 2 ? c.argText(2) : "") + "'. Try VARVE HELP.");
        }
    }

    /** CLUSTER MEET ip port [bus-port]: the bus port is not used (the nodes talk over Raft and RESP). */
    static void meet(CommandCall c) {
        if (c.argCount() != 4 && c.argCount() != 5) {
            throw new RedisError("ERR wrong number of arguments for 'cluster|meet' command");
        }
        c.reply().simple(operations(c).meet(c.argText(2), port(c, 3), c.server().requirePass(), false));
    }

    /** CLUSTER FORGET node-id. */
    static void forget(CommandCall c) {
        if (c.argCount() != 3) {
            throw new RedisError("ERR wrong number of arguments for 'cluster|forget' command");
        }
        c.reply().simple(operations(c).forget(c.argText(2), c.server().requirePass(), false));
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

    private static int port(CommandCall c, int i) {
        Long port = Args.tryParseLong(c.arg(i));
        if (port == null || port < 1 || port > 65535) {
            throw new RedisError("ERR Invalid base port specified: " + c.argText(i));
        }
        return port.intValue();
    }

    private static int number(CommandCall c, int i) {
        Long n = Args.tryParseLong(c.arg(i));
        if (n == null || n < 0 || n > Integer.MAX_VALUE) {
            throw new RedisError("ERR value is not an integer or out of range");
        }
        return n.intValue();
    }
}
