package io.varve.server.scripting;

import io.varve.server.resp.Reply;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * A script's result written as a reply, by Redis's rules: a number becomes an integer (truncated toward
 * zero), a string a bulk string, a table an array that ends at its first nil, a table with an {@code ok} or
 * {@code err} field a status or an error, nil a null; a boolean is 1 or null under RESP2 and a boolean under
 * RESP3 ({@code redis.setresp(3)}). The RESP3 shapes ({@code map}, {@code set}, {@code double},
 * {@code big_number}, {@code verbatim_string} fields) are written as such, and {@link Reply} degrades them for
 * a RESP2 client as Redis does.
 */
final class LuaToResp {

    /** Deeper than this, a reply is refused instead of overflowing the stack on a self-referencing table. */
    private static final int MAX_DEPTH = 1000;

    private LuaToResp() {
    }

    /** @param scriptProtocol the protocol the script chose with redis.setresp (2 or 3) */
    static void write(LuaValue v, Reply reply, int scriptProtocol) {
        write(v, reply, scriptProtocol, 0);
    }

    private static void write(LuaValue v, Reply reply, int scriptProtocol, int depth) {
        if (depth > MAX_DEPTH) {
            reply.error("ERR reached lua stack limit");
            return;
        }
        switch (v.type()) {
            case LuaValue.TNUMBER -> reply.integer(truncate(v.todouble()));
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                byte[] bytes = new byte[s.length()];
                s.copyInto(0, bytes, 0, bytes.length);
                reply.bulk(bytes);
            }
            case LuaValue.TBOOLEAN -> {
                if (scriptProtocol == 2) {
                    if (v.toboolean()) {
                        reply.integer(1);
                    } else {
                        reply.nil();
                    }
                } else {
                    reply.bool(v.toboolean());
                }
            }
            case LuaValue.TTABLE -> table((LuaTable) v, reply, scriptProtocol, depth);
            default -> reply.nil();
        }
    }

    /** Lua numbers are doubles; Redis casts them to long long, which truncates toward zero. */
    static long truncate(double d) {
        return (long) d;
    }

    private static void table(LuaTable t, Reply reply, int scriptProtocol, int depth) {
        LuaValue err = t.rawget(RespToLua.ERR);
        if (err.isstring()) {
            reply.error(ScriptErrors.replyText(err.tojstring()));
            return;
        }
        LuaValue ok = t.rawget(RespToLua.OK);
        if (ok.isstring()) {
            reply.simple(ok.tojstring().replace('\r', ' ').replace('\n', ' '));
            return;
        }
        LuaValue dbl = t.rawget(RespToLua.DOUBLE);
        if (dbl.isnumber()) {
            reply.doubleValue(dbl.todouble());
            return;
        }
        LuaValue big = t.rawget(RespToLua.BIG_NUMBER);
        if (big.isstring()) {
            if (reply.resp3()) {
                reply.buffer().writeByte('(');
                io.netty.buffer.ByteBufUtil.writeAscii(reply.buffer(), big.tojstring());
                reply.buffer().writeByte('\r').writeByte('\n');
            } else {
                reply.bulk(big.tojstring());
            }
            return;
        }
        LuaValue map = t.rawget(RespToLua.MAP);
        if (map.istable()) {
            LuaTable m = (LuaTable) map;
            int pairs = 0;
            for (LuaValue k = m.next(LuaValue.NIL).arg1(); !k.isnil(); k = m.next(k).arg1()) {
                pairs++;
            }
            reply.mapHeader(pairs);
            for (LuaValue k = m.next(LuaValue.NIL).arg1(); !k.isnil(); k = m.next(k).arg1()) {
                write(k, reply, scriptProtocol, depth + 1);
                write(m.rawget(k), reply, scriptProtocol, depth + 1);
            }
            return;
        }
        LuaValue set = t.rawget(RespToLua.SET);
        if (set.istable()) {
            LuaTable s = (LuaTable) set;
            int n = 0;
            for (LuaValue k = s.next(LuaValue.NIL).arg1(); !k.isnil(); k = s.next(k).arg1()) {
                n++;
            }
            reply.setHeader(n);
            for (LuaValue k = s.next(LuaValue.NIL).arg1(); !k.isnil(); k = s.next(k).arg1()) {
                write(k, reply, scriptProtocol, depth + 1);
            }
            return;
        }
        LuaValue verbatim = t.rawget(RespToLua.VERBATIM);
        if (verbatim.istable()) {
            LuaValue text = verbatim.get("string");
            LuaValue format = verbatim.get("format");
            if (text.isstring() && format.isstring()) {
                if (reply.resp3()) {
                    LuaString s = text.checkstring();
                    byte[] body = new byte[s.length()];
                    s.copyInto(0, body, 0, body.length);
                    reply.buffer().writeByte('=');
                    io.netty.buffer.ByteBufUtil.writeAscii(reply.buffer(), Integer.toString(body.length + 4));
                    reply.buffer().writeByte('\r').writeByte('\n');
                    io.netty.buffer.ByteBufUtil.writeAscii(reply.buffer(), (format.tojstring() + "   ").substring(0, 3) + ":");
                    reply.buffer().writeBytes(body);
                    reply.buffer().writeByte('\r').writeByte('\n');
                } else {
                    write(text, reply, scriptProtocol, depth + 1);
                }
                return;
            }
        }
        int n = 0;
        while (!t.rawget(n + 1).isnil()) {
            n++;
        }
        reply.arrayHeader(n);
        for (int i = 1; i <= n; i++) {
            write(t.rawget(i), reply, scriptProtocol, depth + 1);
        }
    }
}
