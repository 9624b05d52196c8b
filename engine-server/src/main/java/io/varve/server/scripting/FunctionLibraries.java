package io.varve.server.scripting;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Redis 7 functions: libraries loaded by FUNCTION LOAD ({@code #!lua name=<lib>} and code that calls
 * {@code redis.register_function}), the functions they register, and FCALL's run of one. A library loads
 * whole or not at all: its code runs against the load-time {@code redis} table, and only when it has
 * registered at least one function, none of whose names another library holds, does it replace what was
 * there. Changed only under the server's exclusive hold; FUNCTION STATS reads the counts without any hold
 * (it must answer while a script is busy), so the maps are guarded by this object's monitor, which is never
 * held while Lua runs.
 */
public final class FunctionLibraries {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");
    /** How long a library's code may run while it loads, as in Redis (which refuses slower ones). */
    private static final long LOAD_TIMEOUT_MILLIS = 500;

    public record Function(String name, String library, LuaFunction callback, String description,
                           Set<ScriptFlags> flags) {
        public boolean declaresNoWrites() {
            return flags.contains(ScriptFlags.NO_WRITES);
        }
    }

    public record Library(String name, String code, Map<String, Function> functions) {
    }

    private final LuaRuntime runtime;
    private final Map<String, Library> libraries = new LinkedHashMap<>();
    private final Map<String, Function> functions = new LinkedHashMap<>();

    FunctionLibraries(LuaRuntime runtime) {
        this.runtime = runtime;
    }

    /** What register_function collects while one library's code runs. */
    final class Loading {
        private final String library;
        private final Map<String, Function> registered = new LinkedHashMap<>();

        Loading(String library) {
            this.library = library;
        }

        void register(Varargs args) {
            String name;
            LuaValue callback;
            String description = null;
            Set<ScriptFlags> flags = EnumSet.noneOf(ScriptFlags.class);
            if (args.narg() == 1) {
                if (!args.arg1().istable()) {
                    throw new LuaError("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
                }
                LuaTable t = (LuaTable) args.arg1();
                LuaValue n = LuaValue.NIL;
                callback = LuaValue.NIL;
                for (Varargs e = t.next(LuaValue.NIL); !e.arg1().isnil(); e = t.next(e.arg1())) {
                    String key = e.arg1().tojstring();
                    LuaValue v = e.arg(2);
                    switch (key) {
                        case "function_name" -> {
                            if (v.type() != LuaValue.TSTRING) {
                                throw new LuaError("function_name argument given to redis.register_function must be a string");
                            }
                            n = v;
                        }
                        case "callback" -> {
                            if (!v.isfunction()) {
                                throw new LuaError("callback argument given to redis.register_function must be a function");
                            }
                            callback = v;
                        }
                        case "description" -> {
                            if (v.type() != LuaValue.TSTRING) {
                                throw new LuaError("description argument given to redis.register_function must be a string");
                            }
                            description = v.tojstring();
                        }
                        case "flags" -> {
                            if (!v.istable()) {
                                throw new LuaError("flags argument to redis.register_function must be a table representing function flags");
                            }
                            for (int i = 1; !v.get(i).isnil(); i++) {
                                ScriptFlags f = v.get(i).type() == LuaValue.TSTRING ? ScriptFlags.named(v.get(i).tojstring()) : null;
                                if (f == null) {
                                    throw new LuaError("unknown flag given");
                                }
                                flags.add(f);
                            }
                        }
                        default -> throw new LuaError("unknown argument given to redis.register_function");
                    }
                }
                if (n.isnil()) {
                    throw new LuaError("redis.register_function must get a function name argument");
                }
                if (callback.isnil()) {
                    throw new LuaError("redis.register_function must get a callback argument");
                }
                name = n.tojstring();
            } else if (args.narg() == 2) {
                if (args.arg1().type() != LuaValue.TSTRING) {
                    throw new LuaError("first argument to redis.register_function must be a string");
                }
                if (!args.arg(2).isfunction()) {
                    throw new LuaError("second argument to redis.register_function must be a function");
                }
                name = args.arg1().tojstring();
                callback = args.arg(2);
            } else {
                throw new LuaError("wrong number of arguments to redis.register_function");
            }
            if (!NAME.matcher(name).matches()) {
                // Redis 7.0 words a bad function name as it words a bad library name
                throw new LuaError("Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
            }
            if (registered.keySet().stream().anyMatch(name::equalsIgnoreCase)) {
                throw new LuaError("Function already exists in the library");
            }
            registered.put(name, new Function(name, library, (LuaFunction) callback, description,
                    Collections.unmodifiableSet(flags)));
        }
    }

    /**
     * FUNCTION LOAD: loads (or with {@code replace} replaces) the library {@code code} names; returns its name.
     */
    public String load(byte[] code, boolean replace) {
        if (!ScriptFlags.hasShebang(code)) {
            throw new RedisError("ERR Missing library metadata");
        }
        ScriptFlags.Shebang shebang = ScriptFlags.parse(code, true);
        String name = shebang.libraryName();
        if (!NAME.matcher(name).matches()) {
            throw new RedisError("ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
        }
        Library existing = library(key(name));
        if (existing != null && !replace) {
            throw new RedisError("ERR Library '" + name + "' already exists");
        }
        byte[] source = code.clone();
        java.util.Arrays.fill(source, 0, shebang.bodyStart() - 1, (byte) ' ');
        LuaFunction body = runtime.compile(source, "user_function", true, "ERR Error compiling function: ");
        Loading loading = new Loading(name);
        runtime.functionsLoading(true);
        runtime.redisLib().loading(loading);
        try {
            runtime.run(ScriptRun.libraryLoad(name, LOAD_TIMEOUT_MILLIS), body, LuaValue.NONE, null);
        } catch (RedisError e) {
            if (e.getMessage().startsWith("ERR FUNCTION LOAD timeout")) {
                throw e;
            }
            throw new RedisError("ERR Error registering functions: " + e.getMessage().replaceFirst("^ERR ", ""));
        } finally {
            runtime.redisLib().loading(null);
            runtime.functionsLoading(false);
        }
        if (loading.registered.isEmpty()) {
            throw new RedisError("ERR No functions registered");
        }
        for (String f : loading.registered.keySet()) {
            Function other = function(f);
            if (other != null && !key(other.library()).equals(key(name))) {
                throw new RedisError("ERR Function " + f + " already exists");
            }
        }
        synchronized (this) {
            if (existing != null) {
                existing.functions().keySet().forEach(f -> functions.remove(key(f)));
            }
            libraries.put(key(name), new Library(name, new String(code, StandardCharsets.UTF_8),
                    Collections.unmodifiableMap(loading.registered)));
            loading.registered.forEach((f, function) -> functions.put(key(f), function));
        }
        return name;
    }

    private synchronized Library library(String name) {
        return libraries.get(name);
    }

    /** FUNCTION DELETE: whether the library existed. */
    public synchronized boolean delete(String library) {
        Library removed = libraries.remove(key(library));
        if (removed == null) {
            return false;
        }
        removed.functions().keySet().forEach(f -> functions.remove(key(f)));
        return true;
    }

    public synchronized void flush() {
        libraries.clear();
        functions.clear();
    }

    public synchronized Collection<Library> libraries() {
        return List.copyOf(libraries.values());
    }

    public synchronized Function function(String name) {
        return functions.get(key(name));
    }

    /** Library and function names are case-insensitive, as in Redis. */
    private static String key(String name) {
        return name.toLowerCase(java.util.Locale.ROOT);
    }

    public synchronized int functionCount() {
        return functions.size();
    }

    /** The libraries as they are now, to put back with {@link #restore} if a multi-library change fails. */
    public synchronized Object snapshot() {
        return new LinkedHashMap<>(libraries);
    }

    @SuppressWarnings("unchecked")
    public synchronized void restore(Object snapshot) {
        flush();
        libraries.putAll((Map<String, Library>) snapshot);
        for (Library l : libraries.values()) {
            l.functions().forEach((f, function) -> functions.put(key(f), function));
        }
    }

    /** Every library's code, in load order (FUNCTION DUMP). */
    public synchronized List<String> codes() {
        List<String> codes = new ArrayList<>();
        for (Library l : libraries.values()) {
            codes.add(l.code());
        }
        return codes;
    }

    /** FCALL: runs {@code f} with the keys and arguments as its two table arguments. */
    public void call(Function f, byte[][] keys, byte[][] args, ScriptRun run, Reply reply) {
        runtime.run(run, f.callback(), LuaValue.varargsOf(EvalScripts.array(keys), EvalScripts.array(args)), reply);
    }
}
