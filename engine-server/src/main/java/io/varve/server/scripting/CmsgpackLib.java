package io.varve.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code cmsgpack} library Redis ships (lua-cmsgpack): {@code pack(...)} encodes each argument and
 * concatenates them, {@code unpack(s)} returns every value encoded in {@code s}. A table whose keys are
 * exactly 1..n is an array, any other a map; integral numbers take the smallest integer encoding, others a
 * 32-bit float when that is exact, else a 64-bit one.
 */
final class CmsgpackLib {

    private static final int MAX_DEPTH = 16;

    private CmsgpackLib() {
    }

    static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("pack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.narg() == 0) {
                    throw new LuaError("MessagePack pack needs input.");
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (int i = 1; i <= args.narg(); i++) {
                    encode(args.arg(i), out, 0);
                }
                return LuaString.valueUsing(out.toByteArray());
            }
        });
        t.rawset("unpack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaString s = args.checkstring(1);
                byte[] in = new byte[s.length()];
                s.copyInto(0, in, 0, in.length);
                Decoder d = new Decoder(in);
                List<LuaValue> values = new ArrayList<>();
                while (d.at < in.length) {
                    values.add(d.value());
                }
                return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
            }
        });
        t.rawset("unpack_one", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return unpackLimit(args.checkstring(1), 1, args.optint(2, 0));
            }
        });
        t.rawset("unpack_limit", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return unpackLimit(args.checkstring(1), args.checkint(2), args.optint(3, 0));
            }
        });
        return t;
    }

    /**
     * lua-cmsgpack's unpack_limit: up to {@code limit} values (0: all) from byte {@code offset}, preceded by
     * the offset of the next value, or -1 when none is left.
     */
    private static Varargs unpackLimit(LuaString s, int limit, int offset) {
        byte[] in = new byte[s.length()];
        s.copyInto(0, in, 0, in.length);
        if (offset < 0 || offset > in.length) {
            throw new LuaError("Start offset " + offset + " greater than input length " + in.length + ".");
        }
        Decoder d = new Decoder(in);
        d.at = offset;
        List<LuaValue> values = new ArrayList<>();
        values.add(LuaValue.NIL);
        while (d.at < in.length && (limit <= 0 || values.size() <= limit)) {
            values.add(d.value());
        }
        values.set(0, LuaValue.valueOf(d.at < in.length ? d.at : -1));
        return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
    }

    private static void encode(LuaValue v, ByteArrayOutputStream out, int depth) {
        switch (v.type()) {
            case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
            case LuaValue.TNUMBER -> number(v.todouble(), out);
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                int n = s.length();
                if (n < 32) {
                    out.write(0xa0 | n);
                } else if (n < 256) {
                    out.write(0xd9);
                    out.write(n);
                } else if (n < 65536) {
                    out.write(0xda);
                    be(out, n, 2);
                } else {
                    out.write(0xdb);
                    be(out, n, 4);
                }
                for (int i = 0; i < n; i++) {
                    out.write(s.luaByte(i));
                }
            }
            case LuaValue.TTABLE -> {
                if (depth >= MAX_DEPTH) {
                    out.write(0xc0);
                    return;
                }
                LuaTable t = (LuaTable) v;
                int count = 0;
                boolean array = true;
                for (Varargs n = t.next(LuaValue.NIL); !n.arg1().isnil(); n = t.next(n.arg1())) {
                    count++;
                    LuaValue k = n.arg1();
                    if (!k.isnumber() || k.todouble() != Math.rint(k.todouble()) || k.todouble() < 1) {
                        array = false;
                    }
                }
                if (array) {
                    for (int i = 1; i <= count; i++) {
                        if (t.rawget(i).isnil()) {
                            array = false;
                            break;
                        }
                    }
                }
                header(out, count, array ? 0x90 : 0x80, array ? 0xdc : 0xde, array ? 0xdd : 0xdf);
                if (array) {
                    for (int i = 1; i <= count; i++) {
                        encode(t.rawget(i), out, depth + 1);
                    }
                } else {
                    for (Varargs n = t.next(LuaValue.NIL); !n.arg1().isnil(); n = t.next(n.arg1())) {
                        encode(n.arg1(), out, depth + 1);
                        encode(n.arg(2), out, depth + 1);
                    }
                }
            }
            default -> out.write(0xc0);
        }
    }

    private static void header(ByteArrayOutputStream out, int n, int fix, int small, int large) {
        if (n < 16) {
            out.write(fix | n);
        } else if (n < 65536) {
            out.write(small);
            be(out, n, 2);
        } else {
            out.write(large);
            be(out, n, 4);
        }
    }

    private static void number(double d, ByteArrayOutputStream out) {
        if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 9.2e18) {
            long n = (long) d;
            if (n >= 0) {
                if (n < 128) {
                    out.write((int) n);
                } else if (n < 256) {
                    out.write(0xcc);
                    be(out, n, 1);
                } else if (n < 65536) {
                    out.write(0xcd);
                    be(out, n, 2);
                } else if (n < 4294967296L) {
                    out.write(0xce);
                    be(out, n, 4);
                } else {
                    out.write(0xcf);
                    be(out, n, 8);
                }
            } else if (n >= -32) {
                out.write((int) (n & 0xff));
            } else if (n >= -128) {
                out.write(0xd0);
                be(out, n, 1);
            } else if (n >= -32768) {
                out.write(0xd1);
                be(out, n, 2);
            } else if (n >= Integer.MIN_VALUE) {
                out.write(0xd2);
                be(out, n, 4);
            } else {
                out.write(0xd3);
                be(out, n, 8);
            }
        } else if ((double) (float) d == d) {
            out.write(0xca);
            be(out, Float.floatToIntBits((float) d), 4);
        } else {
            out.write(0xcb);
            be(out, Double.doubleToLongBits(d), 8);
        }
    }

    private static void be(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
    }

    private static final class Decoder {
        private final byte[] in;
        int at;

        Decoder(byte[] in) {
            this.in = in;
        }

        private long read(int bytes) {
            if (at + bytes > in.length) {
                throw new LuaError("Missing bytes in input.");
            }
            long v = 0;
            for (int i = 0; i < bytes; i++) {
                v = (v << 8) | (in[at++] & 0xff);
            }
            return v;
        }

        private LuaValue bytes(int n) {
            if (n < 0 || at + n > in.length) {
                throw new LuaError("Missing bytes in input.");
            }
            byte[] copy = new byte[n];
            System.arraycopy(in, at, copy, 0, n);
            at += n;
            return LuaString.valueUsing(copy);
        }

        LuaValue value() {
            int c = (int) read(1);
            if (c < 0x80) {
                return LuaValue.valueOf(c);
            }
            if (c >= 0xe0) {
                return LuaValue.valueOf(c - 256);
            }
            if ((c & 0xe0) == 0xa0) {
                return bytes(c & 0x1f);
            }
            if ((c & 0xf0) == 0x90) {
                return array(c & 0x0f);
            }
            if ((c & 0xf0) == 0x80) {
                return map(c & 0x0f);
            }
            return switch (c) {
                case 0xc0 -> LuaValue.NIL;
                case 0xc2 -> LuaValue.FALSE;
                case 0xc3 -> LuaValue.TRUE;
                case 0xcc -> LuaValue.valueOf(read(1));
                case 0xcd -> LuaValue.valueOf(read(2));
                case 0xce -> LuaValue.valueOf(read(4));
                case 0xcf -> {
                    long v = read(8);
                    yield LuaValue.valueOf(v < 0 ? v + 18446744073709551616.0 : (double) v);
                }
                case 0xd0 -> LuaValue.valueOf((byte) read(1));
                case 0xd1 -> LuaValue.valueOf((short) read(2));
                case 0xd2 -> LuaValue.valueOf((int) read(4));
                case 0xd3 -> LuaValue.valueOf((double) read(8));
                case 0xca -> LuaValue.valueOf(Float.intBitsToFloat((int) read(4)));
                case 0xcb -> LuaValue.valueOf(Double.longBitsToDouble(read(8)));
                case 0xd9, 0xc4 -> bytes((int) read(1));
                case 0xda, 0xc5 -> bytes((int) read(2));
                case 0xdb, 0xc6 -> bytes((int) read(4));
                case 0xdc -> array((int) read(2));
                case 0xdd -> array((int) read(4));
                case 0xde -> map((int) read(2));
                case 0xdf -> map((int) read(4));
                default -> throw new LuaError("Bad data format in input.");
            };
        }

        private LuaTable array(int n) {
            LuaTable t = new LuaTable();
            for (int i = 1; i <= n; i++) {
                t.rawset(i, value());
            }
            return t;
        }

        private LuaTable map(int n) {
            LuaTable t = new LuaTable();
            for (int i = 0; i < n; i++) {
                LuaValue k = value();
                LuaValue v = value();
                if (!k.isnil()) {
                    t.rawset(k, v);
                }
            }
            return t;
        }
    }
}
