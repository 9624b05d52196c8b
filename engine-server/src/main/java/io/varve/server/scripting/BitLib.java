package io.varve.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code bit} library Redis ships (LuaBitOp): 32-bit operations whose results are signed 32-bit
 * numbers. Arguments are numbers reduced modulo 2^32 after rounding, as LuaBitOp reduces them.
 */
final class BitLib {

    private BitLib() {
    }

    static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("tobit", op(a -> a.bit(1)));
        t.rawset("bnot", op(a -> ~a.bit(1)));
        t.rawset("band", op(a -> fold(a, 0xffffffff, Op.AND)));
        t.rawset("bor", op(a -> fold(a, 0, Op.OR)));
        t.rawset("bxor", op(a -> fold(a, 0, Op.XOR)));
        t.rawset("lshift", op(a -> a.bit(1) << (a.bit(2) & 31)));
        t.rawset("rshift", op(a -> a.bit(1) >>> (a.bit(2) & 31)));
        t.rawset("arshift", op(a -> a.bit(1) >> (a.bit(2) & 31)));
        t.rawset("rol", op(a -> Integer.rotateLeft(a.bit(1), a.bit(2) & 31)));
        t.rawset("ror", op(a -> Integer.rotateRight(a.bit(1), a.bit(2) & 31)));
        t.rawset("bswap", op(a -> Integer.reverseBytes(a.bit(1))));
        t.rawset("tohex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                int value = toBit(args.arg1());
                int n = args.isnoneornil(2) ? 8 : toBit(args.arg(2));
                boolean upper = n < 0;
                n = Math.min(Math.abs(n), 8);
                String hex = String.format("%08x", value);
                hex = hex.substring(8 - n);
                return LuaValue.valueOf(upper ? hex.toUpperCase(java.util.Locale.ROOT) : hex);
            }
        });
        return t;
    }

    private enum Op { AND, OR, XOR }

    private static int fold(Args a, int start, Op op) {
        int r = start;
        for (int i = 1; i <= a.args.narg(); i++) {
            int v = a.bit(i);
            r = switch (op) {
                case AND -> r & v;
                case OR -> r | v;
                case XOR -> r ^ v;
            };
        }
        return r;
    }

    private record Args(Varargs args) {
        int bit(int i) {
            return toBit(args.arg(i));
        }
    }

    private interface IntOp {
        int apply(Args a);
    }

    private static VarArgFunction op(IntOp f) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.valueOf(f.apply(new Args(args)));
            }
        };
    }

    /** A Lua number rounded and reduced to a signed 32-bit integer, as LuaBitOp's tobit. */
    static int toBit(LuaValue v) {
        if (!v.isnumber()) {
            throw new LuaError("bad argument to bit operation (number expected, got " + v.typename() + ")");
        }
        double d = v.todouble();
        return (int) (long) Math.rint(d % 4294967296.0);
    }
}
