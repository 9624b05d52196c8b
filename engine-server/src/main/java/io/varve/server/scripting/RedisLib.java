package io.varve.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.ZeroArgFunction;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The {@code redis} table scripts call: {@code call}, {@code pcall}, {@code error_reply},
 * {@code status_reply}, {@code sha1hex}, {@code log}, {@code setresp} and the constants, with Redis 7's
 * error words. Function libraries see another table while they load: only {@code register_function},
 * {@code log} and the constants, so calling a command at load time fails as in Redis.
 */
final class RedisLib {

    private static final System.Logger LOG = System.getLogger("io.varve.server.scripting.user");
    private static final String VERSION = "7.0.0";

    private final LuaRuntime runtime;
    private final LuaTable runtimeTable;
    private final LuaTable loadTable;
    /** Where register_function puts what it registers while a library loads; null otherwise. */
    private FunctionLibraries.Loading loading;

    RedisLib(LuaRuntime runtime) {
        this.runtime = runtime;
        this.runtimeTable = protectedTable();
        this.loadTable = protectedTable();
        LuaTable real = (LuaTable) runtimeTable.getmetatable().rawget(LuaValue.INDEX);
        real.rawset("call", new Call(true));
        real.rawset("pcall", new Call(false));
        real.rawset("error_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue message) {
                return tableWith(RespToLua.ERR, LuaValue.valueOf(ScriptErrors.replyText(message.checkjstring())));
            }
        });
        real.rawset("status_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue message) {
                return tableWith(RespToLua.OK, message.checkstring());
            }
        });
        real.rawset("sha1hex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.narg() != 1) {
                    throw new LuaError("wrong number of arguments");
                }
                LuaString s = args.checkstring(1);
                return LuaValue.valueOf(sha1(s.m_bytes, s.m_offset, s.m_length));
            }
        });
        real.rawset("acl_check_cmd", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                ScriptRun run = runtime.current();
                if (run == null) {
                    throw new LuaError("redis.acl_check_cmd can only be called inside a script invocation");
                }
                if (args.narg() == 0) {
                    throw new CommandError(tableWith(RespToLua.ERR,
                            LuaValue.valueOf("ERR Please specify at least one argument for this redis lib call")));
                }
                byte[][] command = new byte[args.narg()][];
                for (int i = 1; i <= args.narg(); i++) {
                    LuaValue a = args.arg(i);
                    command[i - 1] = a.type() == LuaValue.TNUMBER
                            ? numberText(a.todouble()).getBytes(StandardCharsets.US_ASCII)
                            : a.checkjstring().getBytes(StandardCharsets.UTF_8);
                }
                Boolean allowed = run.host().aclAllows(command);
                if (allowed == null) {
                    throw new CommandError(tableWith(RespToLua.ERR,
                            LuaValue.valueOf("ERR Invalid command passed to redis.acl_check_cmd()")));
                }
                return LuaValue.valueOf(allowed);
            }
        });
        real.rawset("setresp", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue version) {
                int v = version.checkint();
                if (v != 2 && v != 3) {
                    throw new LuaError("RESP version must be 2 or 3.");
                }
                runtime.current().protocol(v);
                return LuaValue.NONE;
            }
        });
        real.rawset("set_repl", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue flags) {
                return LuaValue.NONE; // every script's effects are replicated as one unit anyway
            }
        });
        real.rawset("replicate_commands", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return LuaValue.TRUE;
            }
        });
        real.rawset("breakpoint", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return LuaValue.FALSE;
            }
        });
        real.rawset("debug", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.NONE;
            }
        });
        real.rawset("REPL_NONE", LuaValue.valueOf(0));
        real.rawset("REPL_AOF", LuaValue.valueOf(1));
        real.rawset("REPL_SLAVE", LuaValue.valueOf(2));
        real.rawset("REPL_REPLICA", LuaValue.valueOf(2));
        real.rawset("REPL_ALL", LuaValue.valueOf(3));
        addShared(real);

        LuaTable load = (LuaTable) loadTable.getmetatable().rawget(LuaValue.INDEX);
        load.rawset("register_function", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (loading == null) {
                    throw new LuaError("redis.register_function can only be called on FUNCTION LOAD command");
                }
                loading.register(args);
                return LuaValue.NONE;
            }
        });
        addShared(load);
    }

    private static void addShared(LuaTable t) {
        t.rawset("log", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.narg() < 2) {
                    throw new LuaError("redis.log() requires two arguments or more.");
                }
                int level = args.checkint(1);
                StringBuilder text = new StringBuilder();
                for (int i = 2; i <= args.narg(); i++) {
                    if (i > 2) {
                        text.append(' ');
                    }
                    text.append(args.arg(i).tojstring());
                }
                System.Logger.Level as = switch (level) {
                    case 0 -> System.Logger.Level.DEBUG;
                    case 1 -> System.Logger.Level.TRACE;
                    case 2 -> System.Logger.Level.INFO;
                    case 3 -> System.Logger.Level.WARNING;
                    default -> throw new LuaError("Invalid debug level.");
                };
                LOG.log(as, text.toString());
                return LuaValue.NONE;
            }
        });
        t.rawset("LOG_DEBUG", LuaValue.valueOf(0));
        t.rawset("LOG_VERBOSE", LuaValue.valueOf(1));
        t.rawset("LOG_NOTICE", LuaValue.valueOf(2));
        t.rawset("LOG_WARNING", LuaValue.valueOf(3));
        t.rawset("REDIS_VERSION", LuaValue.valueOf(VERSION));
        t.rawset("REDIS_VERSION_NUM", LuaValue.valueOf(0x070000));
    }

    LuaTable runtimeTable() {
        return runtimeTable;
    }

    LuaTable loadTable() {
        return loadTable;
    }

    void loading(FunctionLibraries.Loading value) {
        this.loading = value;
    }

    /** A table whose reads of a missing field raise Redis's nonexistent-global error and which refuses writes. */
    private static LuaTable protectedTable() {
        LuaTable real = new LuaTable();
        LuaTable missing = new LuaTable();
        missing.rawset(LuaValue.INDEX, new org.luaj.vm2.lib.TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue table, LuaValue key) {
                throw new LuaError("Script attempted to access nonexistent global variable '" + key.tojstring() + "'");
            }
        });
        real.setmetatable(missing);
        LuaTable view = new LuaTable();
        LuaTable meta = new LuaTable();
        meta.rawset(LuaValue.INDEX, real);
        meta.rawset(LuaValue.NEWINDEX, LuaRuntime.ReadOnly.INSTANCE);
        view.setmetatable(meta);
        return view;
    }

    static LuaTable tableWith(LuaString key, LuaValue value) {
        LuaTable t = new LuaTable();
        t.rawset(key, value);
        return t;
    }

    static String sha1(byte[] bytes, int offset, int length) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            digest.update(bytes, offset, length);
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK always has SHA-1", e);
        }
    }

    /** redis.call (errors raise) and redis.pcall (errors are returned as {err=...}). */
    private final class Call extends VarArgFunction {
        private final boolean raise;

        Call(boolean raise) {
            this.raise = raise;
        }

        @Override
        public Varargs invoke(Varargs args) {
            ScriptRun run = runtime.current();
            if (run == null) {
                throw new LuaError("redis.call can only be called inside a script invocation");
            }
            runtime.budget().check();
            int n = args.narg();
            if (n == 0) {
                return fail("ERR Please specify at least one argument for this redis lib call");
            }
            byte[][] command = new byte[n][];
            for (int i = 1; i <= n; i++) {
                LuaValue a = args.arg(i);
                if (a.type() == LuaValue.TNUMBER) {
                    command[i - 1] = numberText(a.todouble()).getBytes(StandardCharsets.US_ASCII);
                } else if (a.type() == LuaValue.TSTRING) {
                    LuaString s = a.checkstring();
                    command[i - 1] = new byte[s.m_length];
                    System.arraycopy(s.m_bytes, s.m_offset, command[i - 1], 0, s.m_length);
                } else {
                    return fail("ERR Lua redis lib command arguments must be strings or integers");
                }
            }
            byte[] reply = run.host().call(command, run.protocol());
            String error = RespToLua.errorOf(reply);
            if (error != null) {
                return fail(error);
            }
            return RespToLua.convert(reply);
        }

        private LuaValue fail(String error) {
            LuaTable err = tableWith(RespToLua.ERR, LuaValue.valueOf(error));
            if (raise) {
                throw new CommandError(err);
            }
            return err;
        }
    }

    /** A Lua number as Redis passes it to a command: integers without a fraction, others as %.17g. */
    static String numberText(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e17) {
            return Long.toString((long) d);
        }
        String s = String.format(java.util.Locale.ROOT, "%.17g", d);
        if (s.contains("e") || s.contains("E")) {
            return s;
        }
        if (s.contains(".")) {
            s = s.replaceAll("0+$", "");
            if (s.endsWith(".")) {
                s = s.substring(0, s.length() - 1);
            }
        }
        return s;
    }
}
