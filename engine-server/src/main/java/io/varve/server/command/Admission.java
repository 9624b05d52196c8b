package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * Decides what becomes of a request before it runs: refused (unknown command, wrong arity or subcommand, not
 * authenticated, not allowed in subscriber mode, refused by replica routing, not allowed inside MULTI),
 * queued by MULTI, or run — after waiting out a CLIENT PAUSE that holds it. Every way a command enters
 * goes through here: {@link Dispatcher#execute} with {@link #admit}, and the shortcuts that answer or group
 * commands without it (GETs answered from memory on the event loop, runs of plain SETs) with
 * {@link #runsAtOnce}, which says whether {@link #admit} would run the command right now without waiting.
 * A shortcut that hears no hands the request to the dispatcher, which then refuses, queues or waits; so
 * every entry answers a request the same way.
 *
 * <p>Thread-safe: it reads the connection's state (its own commands change it one at a time) and the
 * server's pause and routing, which are safe to read from any thread.
 */
final class Admission {

    /** What to do with a request. */
    enum Outcome { RUN, QUEUE, REFUSE }

    /**
     * The decision on one request.
     *
     * @param spec      the command, null when it is unknown
     * @param effective the subcommand the arguments name, or the command itself
     * @param writes    whether it may write or replicate (for EXEC: whether something queued may)
     * @param error     the error reply when refused
     * @param byRouting  refused by replica routing (this member may not run it now), not by its own rules
     */
    record Decision(Outcome outcome, CommandSpec spec, CommandSpec effective, boolean writes, String error,
                    boolean byRouting) {
        static Decision refuse(CommandSpec spec, String error) {
            return new Decision(Outcome.REFUSE, spec, spec, false, error, false);
        }
    }

    private final CommandTable table;
    private final ServerContext server;
    private final ClientPause pause;
    private final AclRegistry acl;

    Admission(CommandTable table, ServerContext server, ClientPause pause, AclRegistry acl) {
        this.table = table;
        this.server = server;
        this.pause = pause;
        this.acl = acl;
    }

    /** Decides on a request; may wait (a pause, replica routing's read index), so never on an event loop. */
    Decision admit(Connection connection, byte[][] args) {
        CommandSpec spec = table.lookup(args[0]);
        if (spec == null) {
            return Decision.refuse(null, Dispatcher.unknownCommand(args));
        }
        if (!spec.arityAccepts(args.length)) {
            return Decision.refuse(spec, "ERR wrong number of arguments for '" + spec.name() + "' command");
        }
        CommandSpec effective = spec;
        if (!spec.subcommands().isEmpty() && args.length > 1) {
            effective = spec.subcommand(args);
            if (effective == null) {
                return Decision.refuse(spec, Dispatcher.unknownSubcommand(spec, args));
            }
            if (!effective.arityAccepts(args.length)) {
                return Decision.refuse(spec, "ERR wrong number of arguments for '" + effective.name() + "' command");
            }
        }
        String refused = refusal(connection, spec);
        if (refused != null) {
            return Decision.refuse(spec, refused);
        }
        refused = acl.refusal(connection, effective, args);
        if (refused != null) {
            return Decision.refuse(spec, refused);
        }
        refused = server.routing().admit(effective, args, connection);
        if (refused != null) {
            return new Decision(Outcome.REFUSE, spec, effective, false, refused, true);
        }
        MultiState tx = connection.transaction();
        if (tx.active() && effective.has(CommandFlag.NO_MULTI)) {
            return Decision.refuse(spec, "ERR Command not allowed inside a transaction");
        }
        boolean writes = writes(connection, spec, effective);
        // Before queueing, as Redis does: a write queued during CLIENT PAUSE WRITE waits like a write run now.
        if (pause.holds(spec, writes) && connection.parking() != null) {
            connection.parking().heldByPause();
        }
        pause.awaitFor(spec, writes);
        Outcome outcome = tx.active() && !spec.has(CommandFlag.RUNS_IN_MULTI) ? Outcome.QUEUE : Outcome.RUN;
        return new Decision(outcome, spec, effective, writes, null, false);
    }

    /**
     * Whether {@link #admit} would run {@code spec} (a command without subcommands) for this connection right
     * now, without refusing, queueing or waiting. Never waits; event loops may call it.
     */
    boolean runsAtOnce(Connection connection, CommandSpec spec) {
        return !server.routing().replicated() // routing may redirect, or wait for a read index
                && runsAtOnceWithoutRouting(connection, spec);
    }

    /**
     * {@link #runsAtOnce} for a blind write of {@code key} (a plain SET joining a run): when replicated, the
     * routing says whether it takes the write at once ({@link ReplicaRouting#takesBlindWriteAtOnce}).
     */
    boolean blindWriteRunsAtOnce(Connection connection, CommandSpec spec, byte[] key) {
        return server.routing().takesBlindWriteAtOnce(key) && runsAtOnceWithoutRouting(connection, spec);
    }

    private boolean runsAtOnceWithoutRouting(Connection connection, CommandSpec spec) {
        return refusal(connection, spec) == null
                && !acl.restricted() // the permission check runs only in admit
                && !connection.repliesAltered() // CLIENT REPLY OFF/SKIP: only the dispatcher drops replies
                && !connection.transaction().active()
                && !pause.holds(spec, writes(connection, spec, spec));
    }

    /** The checks on the connection's own state: authentication and subscriber mode. */
    private static String refusal(Connection connection, CommandSpec spec) {
        if (!connection.authenticated() && !spec.allowedBeforeAuth()) {
            return RedisError.NOAUTH;
        }
        if (!spec.has(CommandFlag.RUNS_WHEN_SUBSCRIBED) && connection.inSubscriberMode()) {
            return PubSubCommands.notAllowedWhenSubscribed(spec);
        }
        return null;
    }

    private static boolean writes(Connection connection, CommandSpec spec, CommandSpec effective) {
        return effective.has(CommandFlag.WRITE) || effective.has(CommandFlag.MAY_REPLICATE)
                || (spec.has(CommandFlag.RUNS_QUEUED) && connection.transaction().queuedWrite());
    }
}
