package io.varve.server.scripting;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseMathLib;

import java.io.ByteArrayInputStream;

/**
 * The one Lua interpreter of the server, set up as Redis sets up its own: the base, table, string and math
 * libraries plus {@code cjson}, {@code bit}, {@code struct}, {@code cmsgpack} and {@code redis}; nothing that
 * reaches the machine ({@code os}, {@code io}, {@code require}, {@code dofile}, {@code loadfile}); no loading
 * of bytecode (LuaJ is given no undumper, so only source compiles); and globals that scripts can read but
 * not create or replace.
 *
 * <p>Globals: scripts see a proxy table whose reads fall through to the real global table and whose writes
 * raise "Attempt to modify a readonly table"; a read of a name the real table lacks raises "Script attempted
 * to access nonexistent global variable". The server itself sets {@code KEYS} and {@code ARGV} in the real
 * table before each EVAL. The library tables are read-only views the same way. Functions (FCALL) get
 * their own such pair, whose proxy resolves, while a library loads, to a table holding only the load-time
 * {@code redis} ({@code register_function}), and otherwise to the full globals.
 *
 * <p>Threads: one script runs at a time, the caller holding the server's command gate exclusively, so the
 * interpreter's state needs no lock; only {@link #budget()} is touched by other threads (SCRIPT KILL, the
 * busy check of every command).
 *
 * <p>Lua 5.1 versus LuaJ's 5.2: Redis runs Lua 5.1; this adds the 5.1 names scripts use ({@code unpack},
 * {@code loadstring}, {@code table.getn}, {@code table.maxn}, {@code math.mod}); {@code getfenv},
 * {@code setfenv}, {@code module} and coroutines are absent (docs/server.md, "Scripting").
 */
public final class LuaRuntime {

    private final Globals globals = new Globals();
    private final ScriptBudget budget = new ScriptBudget();
    private final LuaTable evalEnv;
    private final LuaTable functionGlobals = new LuaTable();
    private final LuaTable functionEnv;
    private final LuaTable functionEnvMeta;
    /** What a library's code sees while it loads: only the load-time {@code redis}. */
    private final LuaTable loadGlobals = new LuaTable();
    private final RedisLib redis;
    /** The read-only views handed to scripts, by identity: setmetatable on one is refused in Redis's words. */
    private final java.util.Set<LuaValue> protectedViews =
            java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private volatile ScriptRun current;

    public LuaRuntime() {
        globals.load(new BaseLib());
        globals.load(new PackageLib());
        globals.load(new TableLib());
        globals.load(new StringLib());
        globals.load(new JseMathLib());
        LuaC.install(globals);
        globals.undumper = null; // source only: a binary chunk cannot be loaded
        globals.debuglib = budget;
        sandbox();
        globals.set("bit", BitLib.create());
        globals.set("cjson", CjsonLib.create());
        globals.set("struct", StructLib.create());
        globals.set("cmsgpack", CmsgpackLib.create());
        redis = new RedisLib(this);
        globals.set("redis", redis.runtimeTable());
        for (String library : new String[] {"string", "table", "math", "bit", "cjson", "struct", "cmsgpack"}) {
            globals.rawset(library, readOnlyView((LuaTable) globals.get(library)));
        }
        LuaValue luajPcall = globals.get("pcall");
        globals.rawset("pcall", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                Varargs result = luajPcall.invoke(args);
                if (result.arg1().toboolean() || result.arg(2).type() != LuaValue.TSTRING) {
                    return result;
                }
                return LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf(lua51Message(result.arg(2).tojstring())));
            }
        });
        LuaValue luajSetMetatable = globals.get("setmetatable");
        globals.rawset("setmetatable", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.arg1().istable() && protectedViews.contains(args.arg1())) {
                    throw new LuaError("Attempt to modify a readonly table");
                }
                return luajSetMetatable.invoke(args);
            }
        });

        for (LuaValue k = globals.next(LuaValue.NIL).arg1(); !k.isnil(); k = globals.next(k).arg1()) {
            functionGlobals.rawset(k, globals.rawget(k));
        }
        evalEnv = protect(globals);
        functionEnv = protect(functionGlobals);
        protectedViews.add(evalEnv);
        protectedViews.add(functionEnv);
        functionEnvMeta = (LuaTable) functionEnv.getmetatable();
        loadGlobals.rawset("redis", redis.loadTable());
        protect(loadGlobals);
        globals.rawset("_G", evalEnv);
        functionGlobals.rawset("_G", functionEnv);
        LuaValue loadstring = new LoadString(evalEnv);
        globals.rawset("loadstring", loadstring);
        globals.rawset("load", new Load(evalEnv));
        functionGlobals.rawset("loadstring", new LoadString(functionEnv));
        functionGlobals.rawset("load", new Load(functionEnv));
    }

    private void sandbox() {
        for (String name : new String[] {"dofile", "loadfile", "print", "require", "module", "package",
                "collectgarbage", "coroutine", "rawlen"}) {
            globals.rawset(name, LuaValue.NIL);
        }
        globals.rawset("collectgarbage", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.valueOf(0);
            }
        });
        LuaTable string = (LuaTable) globals.get("string");
        string.rawset("dump", LuaValue.NIL);
        LuaTable table = (LuaTable) globals.get("table");
        globals.rawset("unpack", table.get("unpack"));
        LuaFunction length = new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.valueOf(args.checktable(1).length());
            }
        };
        table.rawset("getn", length);
        table.rawset("maxn", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaTable t = args.checktable(1);
                double max = 0;
                for (LuaValue k = t.next(LuaValue.NIL).arg1(); !k.isnil(); k = t.next(k).arg1()) {
                    if (k.isnumber() && k.todouble() > max) {
                        max = k.todouble();
                    }
                }
                return LuaValue.valueOf(max);
            }
        });
        LuaTable math = (LuaTable) globals.get("math");
        math.rawset("mod", math.get("fmod"));
        LuaValue luajToString = globals.get("tostring");
        globals.rawset("tostring", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaValue v = args.checkvalue(1);
                return v.type() == LuaValue.TNUMBER ? LuaValue.valueOf(LuaNumbers.format(v.todouble()))
                        : luajToString.call(v);
            }
        });
        table.rawset("concat", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaTable t = args.checktable(1);
                LuaString sep = args.isnoneornil(2) ? LuaValue.EMPTYSTRING : args.checkstring(2);
                int from = args.optint(3, 1);
                int to = args.isnoneornil(4) ? t.length() : args.checkint(4);
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                for (int i = from; i <= to; i++) {
                    LuaValue v = t.get(i);
                    LuaString piece;
                    if (v.type() == LuaValue.TNUMBER) {
                        piece = LuaValue.valueOf(LuaNumbers.format(v.todouble()));
                    } else if (v.type() == LuaValue.TSTRING) {
                        piece = v.checkstring();
                    } else {
                        throw new LuaError("invalid value (at index " + i + ") in table for 'concat'");
                    }
                    out.write(piece.m_bytes, piece.m_offset, piece.m_length);
                    if (i < to) {
                        out.write(sep.m_bytes, sep.m_offset, sep.m_length);
                    }
                }
                return LuaString.valueUsing(out.toByteArray());
            }
        });
    }

    /** LuaJ's "@chunk:line message" as Lua 5.1 words an error message: "chunk:line: message". */
    static String lua51Message(String luaj) {
        return luaj.strip().replaceFirst("^@([^ :]+:\\d+) ", "$1: ");
    }

    /** A read-only view of {@code real}: reads fall through, missing names and every write raise errors. */
    private LuaTable protect(LuaTable real) {
        LuaTable missing = new LuaTable();
        missing.rawset(LuaValue.INDEX, new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue table, LuaValue key) {
                throw new LuaError("Script attempted to access nonexistent global variable '" + key.tojstring() + "'");
            }
        });
        missing.rawset(LuaValue.NEWINDEX, ReadOnly.INSTANCE);
        real.setmetatable(missing);
        // A Globals, not a plain table: LuaJ gives the closures compiled in an environment the debug hooks of
        // that environment only when it is a Globals, and the budget lives there.
        Globals view = new Globals();
        view.debuglib = budget;
        LuaTable meta = new LuaTable();
        meta.rawset(LuaValue.INDEX, real);
        meta.rawset(LuaValue.NEWINDEX, ReadOnly.INSTANCE);
        // getmetatable(_G) shows a read-only metatable whose __index is a read-only view of the globals
        LuaTable shown = new LuaTable();
        shown.rawset(LuaValue.INDEX, readOnlyView(real));
        meta.rawset(LuaValue.METATABLE, readOnlyView(shown));
        view.setmetatable(meta);
        return view;
    }

    /**
     * A library table as scripts see it (Redis 7 makes every global table read-only): reads fall through to
     * {@code real}, writes raise "Attempt to modify a readonly table", and {@code getmetatable} gives
     * another such view, so the metatable cannot be edited either.
     */
    private LuaTable readOnlyView(LuaTable real) {
        LuaTable view = new LuaTable();
        LuaTable meta = new LuaTable();
        meta.rawset(LuaValue.INDEX, real);
        meta.rawset(LuaValue.NEWINDEX, ReadOnly.INSTANCE);
        LuaTable shownMeta = new LuaTable();
        LuaTable shownMetaMeta = new LuaTable();
        shownMetaMeta.rawset(LuaValue.NEWINDEX, ReadOnly.INSTANCE);
        shownMetaMeta.rawset(LuaValue.METATABLE, LuaValue.FALSE);
        shownMeta.setmetatable(shownMetaMeta);
        meta.rawset(LuaValue.METATABLE, shownMeta);
        view.setmetatable(meta);
        protectedViews.add(view);
        protectedViews.add(shownMeta);
        return view;
    }

    /** The __newindex of a protected table. */
    static final class ReadOnly extends VarArgFunction {
        static final ReadOnly INSTANCE = new ReadOnly();

        @Override
        public Varargs invoke(Varargs args) {
            throw new LuaError("Attempt to modify a readonly table");
        }
    }

    /** {@code loadstring(s [, name])}: source only, compiled in the calling kind's protected globals. */
    private final class LoadString extends VarArgFunction {
        private final LuaTable env;

        LoadString(LuaTable env) {
            this.env = env;
        }

        @Override
        public Varargs invoke(Varargs args) {
            return compileChunk(args.checkstring(1).m_bytes, args.optjstring(2, "=(load)"), env);
        }
    }

    /** {@code load(chunk [, name])} with a string chunk, as {@code loadstring}; no function readers, no mode. */
    private final class Load extends VarArgFunction {
        private final LuaTable env;

        Load(LuaTable env) {
            this.env = env;
        }

        @Override
        public Varargs invoke(Varargs args) {
            if (!args.arg1().isstring()) {
                return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf("load only accepts a string here"));
            }
            return compileChunk(args.checkstring(1).m_bytes, args.optjstring(2, "=(load)"), env);
        }
    }

    private Varargs compileChunk(byte[] source, String name, LuaTable env) {
        if (source.length > 0 && source[0] == 0x1b) {
            return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf("bytecode is not allowed in scripts"));
        }
        try {
            return globals.load(new ByteArrayInputStream(source), name, "t", env);
        } catch (LuaError e) {
            return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf(e.getMessage()));
        }
    }

    /**
     * Compiles a script's source as a function of {@code env}'s kind: {@code forFunctions} picks the
     * functions' globals. A syntax error is thrown as Redis words it.
     */
    LuaFunction compile(byte[] source, String chunkName, boolean forFunctions, String errorPrefix) {
        if (source.length > 0 && source[0] == 0x1b) {
            throw new RedisError(errorPrefix + "bytecode is not allowed in scripts");
        }
        try {
            return globals.load(new ByteArrayInputStream(source), "@" + chunkName, "t",
                    forFunctions ? functionEnv : evalEnv).checkfunction();
        } catch (LuaError e) {
            throw new RedisError(errorPrefix + e.getMessage());
        }
    }

    /** Sets a global of the EVAL scripts (KEYS, ARGV) past the protection. */
    void setEvalGlobal(String name, LuaValue value) {
        globals.rawset(name, value);
    }

    /**
     * Swaps what the functions' globals resolve to: while a library loads, only {@code redis} with the
     * load-time API (Redis hides every other global then); afterwards the full set, which the registered
     * callbacks, compiled against the same environment, find when they run.
     */
    void functionsLoading(boolean loading) {
        functionEnvMeta.rawset(LuaValue.INDEX, loading ? loadGlobals : functionGlobals);
    }

    /**
     * Runs {@code body} as the script {@code run}: the budget watches it, errors become Redis's error
     * replies (thrown as RedisError), and the result is written to {@code reply}.
     */
    void run(ScriptRun run, LuaFunction body, Varargs args, Reply reply) {
        current = run;
        budget.start(run.busyAfterMillis(), run.libraryLoad());
        try {
            LuaValue result = body.invoke(args).arg1();
            if (result.istable() && result.rawget(RespToLua.ERR).isstring()) {
                // thrown, not written, so the server counts it among its error replies as Redis does
                throw new RedisError(ScriptErrors.replyText(result.rawget(RespToLua.ERR).tojstring()));
            }
            if (reply != null) {
                LuaToResp.write(result, reply, run.protocol());
            }
        } catch (LuaError e) {
            throw ScriptErrors.of(e, run.name(), run.source());
        } catch (ScriptBudget.Killed e) {
            throw new RedisError("ERR Script killed by user with " + (run.function() ? "FUNCTION" : "SCRIPT")
                    + " KILL...");
        } catch (ScriptBudget.TimedOut e) {
            throw new RedisError("ERR FUNCTION LOAD timeout");
        } catch (StackOverflowError e) {
            throw new RedisError("ERR Error running script " + run.name() + ", stack overflow");
        } finally {
            budget.stop();
            current = null;
        }
    }

    /** The script running now (on the running thread), or null. */
    ScriptRun current() {
        return current;
    }

    /** What other threads may look at and ask of the running script. */
    ScriptBudget budget() {
        return budget;
    }

    RedisLib redisLib() {
        return redis;
    }
}
