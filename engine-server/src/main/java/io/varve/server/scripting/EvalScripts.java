package io.varve.server.scripting;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The script cache of EVAL, EVALSHA and SCRIPT LOAD: each script compiled once and kept by the SHA1 of its
 * body until SCRIPT FLUSH. Reads (SCRIPT EXISTS, EVALSHA's lookup) may run beside each other, hence the
 * concurrent map; compiling and running need the server's exclusive hold, which the caller takes.
 */
public final class EvalScripts {

    /** A compiled script; {@code shebang}: it declared its flags, so they, not its commands, decide. */
    public record Script(String sha, LuaFunction body, Set<ScriptFlags> flags, boolean shebang) {
        public boolean declaresNoWrites() {
            return flags.contains(ScriptFlags.NO_WRITES);
        }
    }

    private final LuaRuntime runtime;
    private final Map<String, Script> bySha = new ConcurrentHashMap<>();

    EvalScripts(LuaRuntime runtime) {
        this.runtime = runtime;
    }

    public static String sha1(byte[] body) {
        return RedisLib.sha1(body, 0, body.length);
    }

    /** The cached script of {@code sha} (any case), or null. */
    public Script lookup(String sha) {
        return bySha.get(sha.toLowerCase(java.util.Locale.ROOT));
    }

    public boolean exists(String sha) {
        return lookup(sha) != null;
    }

    /** Compiles and caches {@code body} unless cached already; syntax errors are thrown as Redis words them. */
    public Script load(byte[] body) {
        String sha = sha1(body);
        Script cached = bySha.get(sha);
        if (cached != null) {
            return cached;
        }
        Set<ScriptFlags> flags = Set.of();
        boolean shebang = ScriptFlags.hasShebang(body);
        byte[] source = body;
        if (shebang) {
            ScriptFlags.Shebang parsed = ScriptFlags.parse(body, false);
            flags = parsed.flags();
            source = Arrays.copyOf(body, body.length);
            Arrays.fill(source, 0, parsed.bodyStart() - 1, (byte) ' '); // keeps line numbers as the user wrote them
        }
        LuaFunction compiled = runtime.compile(source, "user_script", false,
                "ERR Error compiling script (new function): ");
        Script script = new Script(sha, compiled, flags, shebang);
        bySha.put(sha, script);
        return script;
    }

    public void flush() {
        bySha.clear();
    }

    public int size() {
        return bySha.size();
    }

    /** Runs {@code script} with {@code KEYS} and {@code ARGV} set, writing its result to {@code reply}. */
    public void run(Script script, byte[][] keys, byte[][] args, ScriptRun run, Reply reply) {
        runtime.setEvalGlobal("KEYS", array(keys));
        runtime.setEvalGlobal("ARGV", array(args));
        try {
            runtime.run(run, script.body(), LuaValue.NONE, reply);
        } finally {
            runtime.setEvalGlobal("KEYS", LuaValue.NIL);
            runtime.setEvalGlobal("ARGV", LuaValue.NIL);
        }
    }

    static LuaTable array(byte[][] values) {
        LuaTable t = new LuaTable(values.length, 0);
        for (int i = 0; i < values.length; i++) {
            t.rawset(i + 1, LuaString.valueOf(values[i]));
        }
        return t;
    }

    /** An unknown SHA1: Redis's reply to EVALSHA. */
    public static RedisError noScript() {
        return new RedisError("NOSCRIPT No matching script. Please use EVAL.");
    }
}
