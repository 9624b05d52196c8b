package io.varve.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code cjson} library Redis ships (lua-cjson 2.1 with its defaults): {@code encode}, {@code decode},
 * {@code null}, and the configuration calls, which are accepted and answer the defaults. Encoding follows
 * lua-cjson: a table whose keys are all positive integers is an array (refused when excessively sparse:
 * more than 10 slots and over half of them empty), any other table an object with string or number keys,
 * an empty table {@code {}}, numbers in {@code %.14g}, and {@code /} escaped as {@code \/}. Decoding turns
 * JSON null into {@code cjson.null}.
 */
final class CjsonLib {

    static final LuaUserdata NULL = new LuaUserdata(new Object());

    /** What the configuration calls change; they last, like Redis's one Lua state, until changed again. */
    private static final class Settings {
        int encodeMaxDepth = 1000;
        int decodeMaxDepth = 1000;
        boolean encodeInvalidNumbers;
    }

    private CjsonLib() {
    }

    static LuaTable create() {
        Settings settings = new Settings();
        LuaTable t = new LuaTable();
        t.rawset("null", NULL);
        t.rawset("_NAME", LuaValue.valueOf("cjson"));
        t.rawset("_VERSION", LuaValue.valueOf("2.1.0"));
        t.rawset("encode", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                encode(v, out, 0, settings);
                return LuaString.valueUsing(out.toByteArray());
            }
        });
        t.rawset("decode", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                LuaString s = v.checkstring();
                byte[] bytes = new byte[s.length()];
                s.copyInto(0, bytes, 0, bytes.length);
                Decoder d = new Decoder(bytes, settings.decodeMaxDepth);
                LuaValue result = d.value(0);
                d.skipSpace();
                if (d.at < bytes.length) {
                    throw d.error("the end");
                }
                return result;
            }
        });
        t.rawset("encode_max_depth", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (!args.isnoneornil(1)) {
                    settings.encodeMaxDepth = args.checkint(1);
                }
                return LuaValue.valueOf(settings.encodeMaxDepth);
            }
        });
        t.rawset("decode_max_depth", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (!args.isnoneornil(1)) {
                    settings.decodeMaxDepth = args.checkint(1);
                }
                return LuaValue.valueOf(settings.decodeMaxDepth);
            }
        });
        t.rawset("encode_invalid_numbers", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (!args.isnoneornil(1)) {
                    settings.encodeInvalidNumbers = args.arg1().toboolean();
                }
                return LuaValue.valueOf(settings.encodeInvalidNumbers);
            }
        });
        for (String setting : new String[] {"encode_sparse_array", "encode_number_precision",
                "encode_keep_buffer", "decode_invalid_numbers", "decode_array_with_array_mt"}) {
            t.rawset(setting, new VarArgFunction() {
                @Override
                public Varargs invoke(Varargs args) {
                    return args;
                }
            });
        }
        return t;
    }

    private static void encode(LuaValue v, ByteArrayOutputStream out, int depth, Settings settings) {
        switch (v.type()) {
            case LuaValue.TNIL -> ascii(out, "null");
            case LuaValue.TBOOLEAN -> ascii(out, v.toboolean() ? "true" : "false");
            case LuaValue.TNUMBER -> {
                double d = v.todouble();
                if (settings.encodeInvalidNumbers && (Double.isNaN(d) || Double.isInfinite(d))) {
                    ascii(out, Double.isNaN(d) ? "nan" : d > 0 ? "inf" : "-inf");
                } else {
                    ascii(out, number(d));
                }
            }
            case LuaValue.TSTRING -> string(v.checkstring(), out);
            case LuaValue.TTABLE -> table((LuaTable) v, out, depth + 1, settings);
            case LuaValue.TUSERDATA, LuaValue.TLIGHTUSERDATA -> {
                if (v != NULL) {
                    throw new LuaError("Cannot serialise userdata: type not supported");
                }
                ascii(out, "null");
            }
            default -> throw new LuaError("Cannot serialise " + v.typename() + ": type not supported");
        }
    }

    private static String number(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new LuaError("Cannot serialise number: must not be NaN or Infinity");
        }
        return LuaNumbers.format(d);
    }

    private static void table(LuaTable t, ByteArrayOutputStream out, int depth, Settings settings) {
        if (depth > settings.encodeMaxDepth) {
            throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
        }
        int max = arrayLength(t);
        if (max > 0) {
            out.write('[');
            for (int i = 1; i <= max; i++) {
                if (i > 1) {
                    out.write(',');
                }
                encode(t.rawget(i), out, depth, settings);
            }
            out.write(']');
            return;
        }
        out.write('{');
        boolean first = true;
        for (Varargs n = t.next(LuaValue.NIL); !n.arg1().isnil(); n = t.next(n.arg1())) {
            LuaValue k = n.arg1();
            if (!first) {
                out.write(',');
            }
            first = false;
            if (k.type() == LuaValue.TSTRING) {
                string(k.checkstring(), out);
            } else if (k.type() == LuaValue.TNUMBER) {
                ascii(out, "\"" + number(k.todouble()) + "\"");
            } else {
                throw new LuaError("Cannot serialise " + k.typename() + ": table key must be a number or string");
            }
            out.write(':');
            encode(n.arg(2), out, depth, settings);
        }
        out.write('}');
    }

    /** The array length if every key is a positive integer (0 for an object or an empty table). */
    private static int arrayLength(LuaTable t) {
        int max = 0;
        int items = 0;
        for (Varargs n = t.next(LuaValue.NIL); !n.arg1().isnil(); n = t.next(n.arg1())) {
            LuaValue k = n.arg1();
            if (k.type() != LuaValue.TNUMBER) {
                return 0;
            }
            double d = k.todouble();
            if (d != Math.rint(d) || d < 1) {
                return 0;
            }
            max = Math.max(max, (int) d);
            items++;
        }
        if (max > 10 && max > items * 2) {
            throw new LuaError("Cannot serialise table: excessively sparse array");
        }
        return max;
    }

    private static void string(LuaString s, ByteArrayOutputStream out) {
        out.write('"');
        for (int i = 0; i < s.length(); i++) {
            int c = s.luaByte(i);
            switch (c) {
                case '"' -> ascii(out, "\\\"");
                case '\\' -> ascii(out, "\\\\");
                case '/' -> ascii(out, "\\/");
                case '\b' -> ascii(out, "\\b");
                case '\f' -> ascii(out, "\\f");
                case '\n' -> ascii(out, "\\n");
                case '\r' -> ascii(out, "\\r");
                case '\t' -> ascii(out, "\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        ascii(out, String.format("\\u%04x", c));
                    } else {
                        out.write(c);
                    }
                }
            }
        }
        out.write('"');
    }

    private static void ascii(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** A recursive-descent JSON reader over bytes, with lua-cjson's error words. */
    private static final class Decoder {
        private final byte[] in;
        private final int maxDepth;
        private int at;

        Decoder(byte[] in, int maxDepth) {
            this.in = in;
            this.maxDepth = maxDepth;
        }

        LuaError error(String expected) {
            String found = at >= in.length ? "'end'" : "'" + (char) in[at] + "'";
            return new LuaError("Expected " + expected + " but found invalid token at character " + (at + 1)
                    + (at >= in.length ? " (" + found + ")" : ""));
        }

        private boolean isSpaceThenAggregate() {
            int i = at;
            while (i < in.length && (in[i] == ' ' || in[i] == '\t' || in[i] == '\n' || in[i] == '\r')) {
                i++;
            }
            return i < in.length && (in[i] == '{' || in[i] == '[');
        }

        void skipSpace() {
            while (at < in.length && (in[at] == ' ' || in[at] == '\t' || in[at] == '\n' || in[at] == '\r')) {
                at++;
            }
        }

        LuaValue value(int depth) {
            if (depth >= maxDepth && at < in.length && (in[at] == '{' || in[at] == '[' || isSpaceThenAggregate())) {
                throw new LuaError("Found too many nested data structures (" + (depth + 1) + ") at character " + (at + 1));
            }
            skipSpace();
            if (at >= in.length) {
                throw error("value");
            }
            byte c = in[at];
            switch (c) {
                case '{': {
                    at++;
                    LuaTable t = new LuaTable();
                    skipSpace();
                    if (at < in.length && in[at] == '}') {
                        at++;
                        return t;
                    }
                    while (true) {
                        skipSpace();
                        if (at >= in.length || in[at] != '"') {
                            throw error("object key string");
                        }
                        LuaValue k = string();
                        skipSpace();
                        if (at >= in.length || in[at] != ':') {
                            throw error("colon");
                        }
                        at++;
                        t.rawset(k, value(depth + 1));
                        skipSpace();
                        if (at < in.length && in[at] == ',') {
                            at++;
                        } else if (at < in.length && in[at] == '}') {
                            at++;
                            return t;
                        } else {
                            throw error("comma or object end");
                        }
                    }
                }
                case '[': {
                    at++;
                    LuaTable t = new LuaTable();
                    skipSpace();
                    if (at < in.length && in[at] == ']') {
                        at++;
                        return t;
                    }
                    for (int i = 1; ; i++) {
                        t.rawset(i, value(depth + 1));
                        skipSpace();
                        if (at < in.length && in[at] == ',') {
                            at++;
                        } else if (at < in.length && in[at] == ']') {
                            at++;
                            return t;
                        } else {
                            throw error("comma or array end");
                        }
                    }
                }
                case '"':
                    return string();
                default:
                    if (literal("true")) {
                        return LuaValue.TRUE;
                    }
                    if (literal("false")) {
                        return LuaValue.FALSE;
                    }
                    if (literal("null")) {
                        return NULL;
                    }
                    return number();
            }
        }

        private boolean literal(String word) {
            byte[] w = word.getBytes(StandardCharsets.US_ASCII);
            if (at + w.length > in.length) {
                return false;
            }
            for (int i = 0; i < w.length; i++) {
                if (in[at + i] != w[i]) {
                    return false;
                }
            }
            at += w.length;
            return true;
        }

        private LuaValue number() {
            int start = at;
            while (at < in.length && "+-0123456789.eE".indexOf(in[at]) >= 0) {
                at++;
            }
            try {
                return LuaValue.valueOf(Double.parseDouble(new String(in, start, at - start, StandardCharsets.US_ASCII)));
            } catch (NumberFormatException e) {
                at = start;
                throw error("value");
            }
        }

        private LuaValue string() {
            at++;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                if (at >= in.length) {
                    throw error("string end");
                }
                byte c = in[at++];
                if (c == '"') {
                    return LuaString.valueUsing(out.toByteArray());
                }
                if (c != '\\') {
                    out.write(c);
                    continue;
                }
                if (at >= in.length) {
                    throw error("escape");
                }
                byte e = in[at++];
                switch (e) {
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' -> {
                        int cp = hex4();
                        if (cp >= 0xd800 && cp < 0xdc00 && at + 1 < in.length && in[at] == '\\' && in[at + 1] == 'u') {
                            at += 2;
                            int low = hex4();
                            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                        }
                        out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                    }
                    default -> out.write(e);
                }
            }
        }

        private int hex4() {
            if (at + 4 > in.length) {
                throw error("unicode escape");
            }
            try {
                int v = Integer.parseInt(new String(in, at, 4, StandardCharsets.US_ASCII), 16);
                at += 4;
                return v;
            } catch (NumberFormatException e) {
                throw error("unicode escape");
            }
        }
    }
}
