package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.scripting.ScriptHost;
import io.varve.server.scripting.ScriptRun;
import io.varve.server.scripting.Scripting;
import io.varve.server.store.Keyspace;


/**
 * Runs a script or function atomically, by the means EXEC uses: in the {@link CommandGate}'s exclusive
 * side, so no other client's command runs meanwhile and none sees part of its writes, with its commits
 * gathered into one ({@link Keyspace#commitTogether}), so its writes reach the engine — and, replicated, the
 * Raft log — as one batch, whole or not at all. A script that fails half-way keeps the writes it made
 * before failing, as in Redis (no rollback): they are committed before its error is replied. Inside EXEC
 * the transaction already holds the gate and gathers the commits, so a script there only runs.
 *
 * <p>A script's commands run as the calling connection's, each through the dispatcher as EXEC runs its
 * queued ones, after the checks a script's call gets ({@link #call}); blocking commands answer at once, as
 * inside EXEC; a SELECT inside the script changes the database for the script only. The running script is
 * published to {@link Scripting#running} so other clients can see it busy and SCRIPT KILL can stop it;
 * that is read without the gate, by design.
 */
final class ScriptExecution implements ScriptHost {

    private final CommandCall call;
    private final Dispatcher dispatcher;
    private ScriptRun run;

    private ScriptExecution(CommandCall call, Dispatcher dispatcher) {
        this.call = call;
        this.dispatcher = dispatcher;
    }

    /** How long a script runs before other clients get BUSY (busy-reply-threshold, lua-time-limit). */
    static long busyThresholdMillis(ServerContext server) {
        java.util.Map<String, String> config = server.configuration();
        String value = config.get("busy-reply-threshold");
        if (value == null) {
            value = config.get("lua-time-limit");
        }
        try {
            return value == null ? 5000 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 5000;
        }
    }

    /**
     * Runs {@code body} as a script of {@code c}: {@code newRun} makes the run from this host, and
     * {@code body} runs it, writing its result to the reply.
     */
    static void execute(CommandCall c, Dispatcher d, java.util.function.Function<ScriptHost, ScriptRun> newRun,
                        java.util.function.BiConsumer<ScriptRun, Reply> body) {
        ScriptExecution host = new ScriptExecution(c, d);
        Connection connection = c.connection();
        MultiState tx = connection.transaction();
        boolean insideExec = tx.executing();
        Scripting scripting = d.scripting();
        try (CommandGate.Held exclusive = d.gate().exclusive()) {
            host.run = newRun.apply(host);
            int database = connection.database();
            RuntimeException[] failure = new RuntimeException[1];
            Runnable script = () -> {
                try {
                    body.accept(host.run, c.reply());
                } catch (RuntimeException e) {
                    failure[0] = e; // the writes before the error still commit
                }
            };
            scripting.running(host.run);
            tx.executing(true);
            try {
                Keyspace ks = c.keyspace();
                Runnable shown = () -> d.monitors().script(connection, c.args(), script);
                if (insideExec) {
                    shown.run();
                } else {
                    ks.blocking().signalAfter(() -> ks.commitTogether(shown));
                }
            } finally {
                tx.executing(insideExec);
                scripting.running(null);
                connection.database(database);
            }
            if (failure[0] != null) {
                throw failure[0];
            }
        }
    }

    @Override
    public byte[] call(byte[][] args, int protocol) {
        String refused = refusal(args);
        if (refused != null) {
            return ("-" + refused + "\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        ByteBuf out = Unpooled.buffer();
        try {
            dispatcher.tracking().asScriptCommand(
                    () -> dispatcher.executeInsideExec(call.connection(), args, new Reply(out, protocol)));
            dispatcher.scriptCommandProbe.run();
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    @Override
    public byte[][] invokingCommand() {
        return call.args();
    }

    @Override
    public Boolean aclAllows(byte[][] args) {
        CommandSpec spec = dispatcher.table().lookup(args[0]);
        if (spec == null) {
            return null;
        }
        CommandSpec effective = spec.subcommands().isEmpty() || args.length < 2 ? spec : spec.subcommand(args);
        return effective != null && dispatcher.acl().refusal(call.connection(), effective, args) == null;
    }

    /** Why a script may not run {@code args}, in Redis's words, or null if it may (and then notes a write). */
    private String refusal(byte[][] args) {
        CommandSpec spec = dispatcher.table().lookup(args[0]);
        if (spec == null) {
            return "ERR Unknown Redis command called from script";
        }
        if (!spec.arityAccepts(args.length)) {
            return "ERR Wrong number of args calling Redis command from script";
        }
        CommandSpec effective = spec;
        if (!spec.subcommands().isEmpty() && args.length > 1) {
            effective = spec.subcommand(args);
            if (effective == null) {
                return Dispatcher.unknownSubcommand(spec, args);
            }
            if (!effective.arityAccepts(args.length)) {
                return "ERR Wrong number of args calling Redis command from script";
            }
        }
        if (spec.has(CommandFlag.NOSCRIPT) || effective.has(CommandFlag.NOSCRIPT)) {
            return "ERR This Redis command is not allowed from script";
        }
        String denied = dispatcher.acl().refusal(call.connection(), effective, args);
        if (denied != null) {
            return denied.contains("'" + effective.name() + "' command")
                    ? "ERR The user executing the script can't run this command or subcommand"
                    : "ERR The user executing the script can't access at least one of the keys mentioned in the "
                            + "command arguments";
        }
        boolean writes = effective.isWrite();
        if (writes && run.readOnly()) {
            return "ERR Write commands are not allowed from read-only scripts.";
        }
        if (writes && (effective.has(CommandFlag.TOUCHES_DATABASE) || effective.has(CommandFlag.TOUCHES_ALL_DATABASES))) {
            // a flush is a range deletion, which cannot join the script's single batch
            return "ERR This Redis command is not allowed from script";
        }
        if (writes) {
            run.markWrote();
        }
        return null;
    }

    /** The BUSY refusal while a script runs past the threshold, else null (any thread). */
    static String busyRefusal(Dispatcher d, CommandSpec effective) {
        Scripting scripting = d.scriptingIfStarted();
        if (scripting == null || !scripting.busy() || effective.has(CommandFlag.ALLOW_BUSY)) {
            return null;
        }
        return scripting.busyError();
    }

}
