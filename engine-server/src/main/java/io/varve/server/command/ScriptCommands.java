package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.scripting.EvalScripts;
import io.varve.server.scripting.ScriptRun;
import io.varve.server.scripting.Scripting;

import java.util.Arrays;
import java.util.List;

/**
 * EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD/EXISTS/FLUSH/KILL with Redis 7's replies. The keys a
 * script declares (numkeys, then that many keys) are the command's key specs, so COMMAND GETKEYS, WATCH
 * marking and a future cluster router see them. Scripts run through {@link ScriptExecution}: atomically,
 * their writes committed as one batch.
 */
final class ScriptCommands {

    private ScriptCommands() {
    }

    static void register(CommandTable.Builder b) {
        List<KeySpec> keys = List.of(KeySpec.counted(2));
        b.add("eval", -3, "noscript skip_monitor may_replicate no_mandatory_keys stale", keys,
                (CoordinatedHandler) (c, d) -> eval(c, d, false, false));
        b.add("evalsha", -3, "noscript skip_monitor may_replicate no_mandatory_keys stale", keys,
                (CoordinatedHandler) (c, d) -> eval(c, d, true, false));
        b.add("eval_ro", -3, "noscript skip_monitor no_mandatory_keys stale readonly", keys,
                (CoordinatedHandler) (c, d) -> eval(c, d, false, true));
        b.add("evalsha_ro", -3, "noscript skip_monitor no_mandatory_keys stale readonly", keys,
                (CoordinatedHandler) (c, d) -> eval(c, d, true, true));
        b.add("script", -2, "", (CoordinatedHandler) ScriptCommands::script);
        b.subcommand("script", "load", 3, "noscript may_replicate stale");
        b.subcommand("script", "exists", -3, "noscript stale");
        b.subcommand("script", "flush", -2, "noscript may_replicate");
        b.subcommand("script", "kill", 2, "noscript allow_busy");
        b.subcommand("script", "help", 2, "loading stale");
    }

    /** The keys and arguments after numkeys, with Redis's errors for a bad count. */
    record KeysAndArgs(byte[][] keys, byte[][] args) {
        static KeysAndArgs of(CommandCall c) {
            Long numkeys = Args.tryParseLong(c.arg(2));
            if (numkeys == null) {
                throw RedisError.notInteger();
            }
            if (numkeys < 0) {
                throw new RedisError("ERR Number of keys can't be negative");
            }
            if (numkeys > c.argCount() - 3) {
                throw new RedisError("ERR Number of keys can't be greater than number of args");
            }
            int n = numkeys.intValue();
            return new KeysAndArgs(Arrays.copyOfRange(c.args(), 3, 3 + n),
                    Arrays.copyOfRange(c.args(), 3 + n, c.argCount()));
        }
    }

    private static void eval(CommandCall c, Dispatcher d, boolean bySha, boolean readOnlyCommand) {
        KeysAndArgs ka = KeysAndArgs.of(c);
        Scripting scripting = d.scripting();
        long busyAfter = ScriptExecution.busyThresholdMillis(c.server());
        ScriptExecution.execute(c, d, host -> {
            EvalScripts.Script script = bySha ? scripting.scripts().lookup(c.argText(1))
                    : scripting.scripts().load(c.arg(1));
            if (script == null) {
                throw EvalScripts.noScript();
            }
            if (readOnlyCommand && script.shebang() && !script.declaresNoWrites()) {
                throw new RedisError("ERR Can not execute a script with write flag using *_ro command.");
            }
            return new ScriptRun(script.sha(), false, readOnlyCommand || script.declaresNoWrites(), host, busyAfter);
        }, (run, reply) -> scripting.scripts().run(scripting.scripts().lookup(run.name()), ka.keys(), ka.args(), run, reply));
    }

    private static void script(CommandCall c, Dispatcher d) {
        Scripting scripting = d.scripting();
        if (c.argIs(1, "load")) {
            try (CommandGate.Held exclusive = d.gate().exclusive()) {
                c.reply().bulk(scripting.scripts().load(c.arg(2)).sha());
            }
        } else if (c.argIs(1, "exists")) {
            c.reply().arrayHeader(c.argCount() - 2);
            for (int i = 2; i < c.argCount(); i++) {
                c.reply().integer(scripting.scripts().exists(c.argText(i)) ? 1 : 0);
            }
        } else if (c.argIs(1, "flush")) {
            if (c.argCount() > 3 || (c.argCount() == 3 && !c.argIs(2, "sync") && !c.argIs(2, "async"))) {
                throw new RedisError("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            }
            try (CommandGate.Held exclusive = d.gate().exclusive()) {
                scripting.scripts().flush();
            }
            c.reply().ok();
        } else if (c.argIs(1, "kill")) {
            kill(scripting, false);
            c.reply().ok();
        } else if (c.argIs(1, "help")) {
            String[] lines = {
                "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "EXISTS <sha1> [<sha1> ...]",
                "    Return information about the existence of the scripts in the script cache.",
                "FLUSH [ASYNC|SYNC]",
                "    Flush the Lua scripts cache. Very dangerous on replicas.",
                "KILL",
                "    Kill the currently executing Lua script.",
                "LOAD <script>",
                "    Load a script into the scripts cache without executing it.",
                "HELP",
                "    Prints this help."};
            c.reply().arrayHeader(lines.length);
            for (String line : lines) {
                c.reply().simple(line);
            }
        }
    }

    /**
     * SCRIPT KILL and FUNCTION KILL: stops the running script if it has not written and is of the asked
     * kind. Otherwise Redis's errors, checked in Redis's order: NOTBUSY with nothing running, UNKILLABLE
     * once it wrote, and BUSY naming the other KILL when the running script is of the other kind. Takes no
     * gate: the script holds it.
     */
    static void kill(Scripting scripting, boolean function) {
        ScriptRun run = scripting.running();
        if (run == null) {
            throw new RedisError("NOTBUSY No scripts in execution right now.");
        }
        if (run.wrote()) {
            throw new RedisError("UNKILLABLE Sorry the script already executed write commands against the "
                    + "dataset. You can either wait the script termination or kill the server in a hard way "
                    + "using the SHUTDOWN NOSAVE command.");
        }
        if (run.function() != function) {
            throw new RedisError("BUSY Redis is busy running a script. You can only call "
                    + (run.function() ? "FUNCTION KILL" : "SCRIPT KILL") + " or SHUTDOWN NOSAVE.");
        }
        scripting.requestKill();
    }
}
