package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.scripting.FunctionDump;
import io.varve.server.scripting.FunctionLibraries;
import io.varve.server.scripting.ScriptFlags;
import io.varve.server.scripting.ScriptRun;
import io.varve.server.scripting.Scripting;

import java.util.List;

/**
 * Redis 7 functions: FUNCTION LOAD/DELETE/FLUSH/LIST/DUMP/RESTORE/STATS/KILL and FCALL, FCALL_RO. Library
 * changes take the command gate's exclusive side (a library's code runs while it loads); FCALL runs through
 * {@link ScriptExecution} as EVAL does. Every change of the libraries is stored in the engine (as FUNCTION
 * DUMP's payload, an internal key FLUSHALL leaves alone) before it is acknowledged, and the server loads
 * them back when it first needs its scripting, so functions survive a restart as Redis's do in its RDB.
 */
final class FunctionCommands {

    private FunctionCommands() {
    }

    static void register(CommandTable.Builder b) {
        List<KeySpec> keys = List.of(KeySpec.counted(2));
        b.add("fcall", -3, "noscript skip_monitor may_replicate no_mandatory_keys stale", keys,
                (CoordinatedHandler) (c, d) -> fcall(c, d, false));
        b.add("fcall_ro", -3, "noscript skip_monitor no_mandatory_keys stale readonly", keys,
                (CoordinatedHandler) (c, d) -> fcall(c, d, true));
        b.add("function", -2, "", (CoordinatedHandler) FunctionCommands::function);
        b.subcommand("function", "load", -3, "write denyoom noscript");
        b.subcommand("function", "delete", 3, "write noscript");
        b.subcommand("function", "flush", -2, "write noscript");
        b.subcommand("function", "list", -2, "noscript");
        b.subcommand("function", "dump", 2, "noscript");
        b.subcommand("function", "restore", -3, "write denyoom noscript");
        b.subcommand("function", "stats", 2, "noscript allow_busy");
        b.subcommand("function", "kill", 2, "noscript allow_busy");
        b.subcommand("function", "help", 2, "loading stale");
    }

    private static void fcall(CommandCall c, Dispatcher d, boolean readOnlyCommand) {
        if (Args.tryParseLong(c.arg(2)) == null) {
            throw new RedisError("ERR Bad number of keys provided");
        }
        ScriptCommands.KeysAndArgs ka = ScriptCommands.KeysAndArgs.of(c);
        Scripting scripting = d.scripting();
        long busyAfter = ScriptExecution.busyThresholdMillis(c.server());
        String name = c.argText(1);
        ScriptExecution.execute(c, d, host -> {
            FunctionLibraries.Function f = scripting.functions().function(name);
            if (f == null) {
                throw new RedisError("ERR Function not found");
            }
            if (readOnlyCommand && !f.declaresNoWrites()) {
                throw new RedisError("ERR Can not execute a script with write flag using *_ro command.");
            }
            return new ScriptRun(name, true, readOnlyCommand || f.declaresNoWrites(), host, busyAfter);
        }, (run, reply) -> scripting.functions().call(scripting.functions().function(name), ka.keys(), ka.args(), run, reply));
    }

    private static void function(CommandCall c, Dispatcher d) {
        Scripting scripting = d.scripting();
        FunctionLibraries libraries = scripting.functions();
        String sub = c.argText(1).toLowerCase(java.util.Locale.ROOT);
        switch (sub) {
            case "load" -> {
                boolean replace = false;
                int codeAt = c.argCount() - 1;
                for (int i = 2; i < codeAt; i++) {
                    if (!c.argIs(i, "replace")) {
                        throw new RedisError("ERR Unknown option given: " + c.argText(i));
                    }
                    replace = true;
                }
                try (CommandGate.Held exclusive = d.gate().exclusive()) {
                    String name = libraries.load(c.arg(codeAt), replace);
                    persist(c, libraries);
                    c.reply().bulk(name);
                }
            }
            case "delete" -> {
                try (CommandGate.Held exclusive = d.gate().exclusive()) {
                    if (!libraries.delete(c.argText(2))) {
                        throw new RedisError("ERR Library not found");
                    }
                    persist(c, libraries);
                }
                c.reply().ok();
            }
            case "flush" -> {
                if (c.argCount() > 3) {
                    throw new RedisError("ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.");
                }
                if (c.argCount() == 3 && !c.argIs(2, "sync") && !c.argIs(2, "async")) {
                    throw new RedisError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
                }
                try (CommandGate.Held exclusive = d.gate().exclusive()) {
                    libraries.flush();
                    persist(c, libraries);
                }
                c.reply().ok();
            }
            case "list" -> {
                try (CommandGate.Held shared = d.gate().shared()) {
                    list(c, libraries);
                }
            }
            case "dump" -> {
                try (CommandGate.Held shared = d.gate().shared()) {
                    c.reply().bulk(FunctionDump.dump(libraries.codes()));
                }
            }
            case "restore" -> restore(c, d, libraries);
            case "stats" -> stats(c, scripting);
            case "kill" -> {
                ScriptCommands.kill(scripting, true);
                c.reply().ok();
            }
            case "help" -> {
                String[] lines = {
                    "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "LOAD [REPLACE] <FUNCTION CODE>", "DELETE <LIBRARY NAME>", "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                    "FLUSH [ASYNC|SYNC]", "DUMP", "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]", "STATS", "KILL",
                    "HELP"};
                c.reply().arrayHeader(lines.length);
                for (String line : lines) {
                    c.reply().simple(line);
                }
            }
            default -> throw new RedisError(Dispatcher.unknownSubcommand(c.spec(), c.args()));
        }
    }

    /** The engine's copy of the libraries, under the key {@link Dispatcher#scripting} loads them from. */
    static final String STORED_LIBRARIES = "function-libraries";

    private static void persist(CommandCall c, FunctionLibraries libraries) {
        c.keyspace().putInternalValue(STORED_LIBRARIES, FunctionDump.dump(libraries.codes()));
    }

    /** Loads the libraries the engine holds into a new scripting; a damaged copy is logged and skipped. */
    static void loadStored(io.varve.server.store.Keyspace keyspace, FunctionLibraries libraries) {
        byte[] stored = keyspace.internalValue(STORED_LIBRARIES);
        if (stored == null) {
            return;
        }
        try {
            for (byte[] code : FunctionDump.read(stored)) {
                libraries.load(code, true);
            }
        } catch (RedisError e) {
            System.getLogger(FunctionCommands.class.getName()).log(System.Logger.Level.ERROR,
                    "the stored function libraries could not be loaded: " + e.getMessage());
        }
    }

    private static void list(CommandCall c, FunctionLibraries libraries) {
        boolean withCode = false;
        String pattern = null;
        for (int i = 2; i < c.argCount(); i++) {
            if (c.argIs(i, "withcode") && !withCode) {
                withCode = true;
            } else if (c.argIs(i, "libraryname") && pattern == null) {
                if (i + 1 >= c.argCount()) {
                    throw new RedisError("ERR library name argument was not given");
                }
                pattern = c.argText(++i);
            } else {
                throw new RedisError("ERR Unknown argument " + c.argText(i));
            }
        }
        Glob glob = pattern == null ? null : new Glob(pattern.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        List<FunctionLibraries.Library> shown = libraries.libraries().stream()
                .filter(l -> glob == null || glob.matches(l.name().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .toList();
        Reply r = c.reply();
        r.arrayHeader(shown.size());
        for (FunctionLibraries.Library l : shown) {
            r.mapHeader(withCode ? 4 : 3);
            r.bulk("library_name");
            r.bulk(l.name());
            r.bulk("engine");
            r.bulk("LUA");
            r.bulk("functions");
            r.arrayHeader(l.functions().size());
            for (FunctionLibraries.Function f : l.functions().values()) {
                r.mapHeader(3);
                r.bulk("name");
                r.bulk(f.name());
                r.bulk("description");
                r.bulk(f.description());
                r.bulk("flags");
                r.setHeader(f.flags().size());
                for (ScriptFlags flag : f.flags()) {
                    r.bulk(flag.wireName());
                }
            }
            if (withCode) {
                r.bulk("library_code");
                r.bulk(l.code());
            }
        }
    }

    private static void restore(CommandCall c, Dispatcher d, FunctionLibraries libraries) {
        if (c.argCount() > 4) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.");
        }
        String policy = c.argCount() > 3 ? c.argText(3).toUpperCase(java.util.Locale.ROOT) : "APPEND";
        if (!List.of("APPEND", "REPLACE", "FLUSH").contains(policy)) {
            throw new RedisError("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
        }
        List<byte[]> codes = FunctionDump.read(c.arg(2));
        try (CommandGate.Held exclusive = d.gate().exclusive()) {
            Object before = libraries.snapshot();
            try {
                if (policy.equals("FLUSH")) {
                    libraries.flush();
                }
                for (byte[] code : codes) {
                    libraries.load(code, policy.equals("REPLACE"));
                }
            } catch (RedisError e) {
                libraries.restore(before);
                // RESTORE words a library collision without the quotes LOAD uses
                throw new RedisError(e.getMessage().replaceFirst("^ERR Library '(.*)' already exists$", "ERR Library $1 already exists"));
            }
            persist(c, libraries);
        }
        c.reply().ok();
    }

    private static void stats(CommandCall c, Scripting scripting) {
        Reply r = c.reply();
        r.mapHeader(2);
        r.bulk("running_script");
        ScriptRun running = scripting.running();
        if (running == null || !running.function()) {
            r.nil();
        } else {
            r.mapHeader(3);
            r.bulk("name");
            r.bulk(running.name());
            r.bulk("command");
            byte[][] command = running.command();
            r.arrayHeader(command.length);
            for (byte[] arg : command) {
                r.bulk(arg);
            }
            r.bulk("duration_ms");
            r.integer(scripting.runningMillis());
        }
        r.bulk("engines");
        r.mapHeader(1);
        r.bulk("LUA");
        r.mapHeader(2);
        r.bulk("libraries_count");
        r.integer(scripting.functions().libraries().size());
        r.bulk("functions_count");
        r.integer(scripting.functions().functionCount());
    }
}
