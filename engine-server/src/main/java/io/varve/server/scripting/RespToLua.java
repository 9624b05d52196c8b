package io.varve.server.scripting;

import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.nio.charset.StandardCharsets;

/**
 * A command's reply, as RESP bytes, turned into the Lua value {@code redis.call} returns, by Redis's rules.
 * RESP2: integer to number, bulk string to string, array to table, status to {@code {ok=...}}, error to
 * {@code {err=...}}, null bulk or null array to {@code false}. RESP3 (after {@code redis.setresp(3)}): map
 * to {@code {map={...}}}, set to {@code {set={member=true}}}, null to {@code nil}, boolean to boolean, double
 * to {@code {double=n}}, big number to {@code {big_number=s}}, verbatim string to
 * {@code {verbatim_string={format=f, string=s}}}.
 */
final class RespToLua {

    static final LuaString OK = LuaValue.valueOf("ok");
    static final LuaString ERR = LuaValue.valueOf("err");
    static final LuaString MAP = LuaValue.valueOf("map");
    static final LuaString SET = LuaValue.valueOf("set");
    static final LuaString DOUBLE = LuaValue.valueOf("double");
    static final LuaString BIG_NUMBER = LuaValue.valueOf("big_number");
    static final LuaString VERBATIM = LuaValue.valueOf("verbatim_string");

    private final byte[] in;
    private int at;

    private RespToLua(byte[] in) {
        this.in = in;
    }

    /** The Lua value of the single reply in {@code reply}. */
    static LuaValue convert(byte[] reply) {
        return new RespToLua(reply).value();
    }

    /** The error text if {@code reply} is an error reply, else null. */
    static String errorOf(byte[] reply) {
        if (reply.length == 0 || reply[0] != '-') {
            return null;
        }
        return new String(reply, 1, reply.length - 3, StandardCharsets.UTF_8);
    }

    private LuaValue value() {
        byte type = in[at++];
        String line = line();
        switch (type) {
            case ':':
                return LuaValue.valueOf((double) Long.parseLong(line));
            case '$': {
                int n = Integer.parseInt(line);
                return n < 0 ? LuaValue.FALSE : bytes(n);
            }
            case '+':
                return single(OK, LuaValue.valueOf(line));
            case '-':
                return single(ERR, LuaValue.valueOf(line));
            case '*': {
                int n = Integer.parseInt(line);
                return n < 0 ? LuaValue.FALSE : array(n);
            }
            case '>':
                return array(Integer.parseInt(line));
            case '_':
                return LuaValue.NIL;
            case '#':
                return LuaValue.valueOf(line.equals("t"));
            case ',':
                return single(DOUBLE, LuaValue.valueOf(parseDouble(line)));
            case '(':
                return single(BIG_NUMBER, LuaValue.valueOf(line));
            case '=': {
                LuaString text = bytes(Integer.parseInt(line));
                LuaTable verbatim = new LuaTable();
                verbatim.rawset("format", text.substring(0, 3));
                verbatim.rawset("string", text.substring(4, text.length()));
                return single(VERBATIM, verbatim);
            }
            case '%': {
                int n = Integer.parseInt(line);
                LuaTable map = new LuaTable();
                for (int i = 0; i < n; i++) {
                    LuaValue k = value();
                    map.rawset(k, value());
                }
                return single(MAP, map);
            }
            case '~': {
                int n = Integer.parseInt(line);
                LuaTable set = new LuaTable();
                for (int i = 0; i < n; i++) {
                    set.rawset(value(), LuaValue.TRUE);
                }
                return single(SET, set);
            }
            default:
                throw new IllegalStateException("unexpected reply type '" + (char) type + "' from a command");
        }
    }

    private static double parseDouble(String text) {
        return switch (text) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            case "nan" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }

    private LuaTable array(int n) {
        LuaTable t = new LuaTable(n, 0);
        for (int i = 1; i <= n; i++) {
            t.rawset(i, value());
        }
        return t;
    }

    private static LuaTable single(LuaString key, LuaValue value) {
        LuaTable t = new LuaTable();
        t.rawset(key, value);
        return t;
    }

    private LuaString bytes(int n) {
        byte[] copy = new byte[n];
        System.arraycopy(in, at, copy, 0, n);
        at += n + 2;
        return LuaString.valueUsing(copy);
    }

    private String line() {
        int start = at;
        while (in[at] != '\r') {
            at++;
        }
        String s = new String(in, start, at - start, StandardCharsets.UTF_8);
        at += 2;
        return s;
    }
}
