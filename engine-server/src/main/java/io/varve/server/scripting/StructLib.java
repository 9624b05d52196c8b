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
 * The {@code struct} library Redis ships (Roberto Ierusalimschy's): {@code pack}, {@code unpack} and
 * {@code size} over the format letters {@code > < ! x b B h H l L T i I s c f d} with optional sizes, native
 * alignment off unless {@code !} asks for it, little-endian unless {@code >} says otherwise.
 */
final class StructLib {

    private StructLib() {
    }

    static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("pack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return pack(args);
            }
        });
        t.rawset("unpack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return unpack(args);
            }
        });
        t.rawset("size", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                Format f = new Format(args.checkjstring(1));
                int total = 0;
                for (Format.Item item = f.next(); item != null; item = f.next()) {
                    if (item.letter == 's' || (item.letter == 'c' && item.size == 0)) {
                        throw new LuaError("options 'c0' - 's' have undefined sizes");
                    }
                    total += f.padding(item, total) + item.size;
                }
                return LuaValue.valueOf(total);
            }
        });
        return t;
    }

    /** Walks a format string item by item, tracking endianness and alignment. */
    private static final class Format {
        record Item(char letter, int size) {
        }

        private final String fmt;
        private int at;
        boolean little = true;
        int maxAlign = 1;

        Format(String fmt) {
            this.fmt = fmt;
        }

        private int optSize(int dflt) {
            int start = at;
            while (at < fmt.length() && Character.isDigit(fmt.charAt(at))) {
                at++;
            }
            return at == start ? dflt : Integer.parseInt(fmt.substring(start, at));
        }

        Item next() {
            while (at < fmt.length()) {
                char c = fmt.charAt(at++);
                switch (c) {
                    case ' ' -> {
                    }
                    case '>' -> little = false;
                    case '<' -> little = true;
                    case '!' -> maxAlign = optSize(8);
                    case 'x', 'b', 'B' -> {
                        return new Item(c, 1);
                    }
                    case 'h', 'H' -> {
                        return new Item(c, 2);
                    }
                    case 'l', 'L', 'T' -> {
                        return new Item(c, 8);
                    }
                    case 'f' -> {
                        return new Item(c, 4);
                    }
                    case 'd' -> {
                        return new Item(c, 8);
                    }
                    case 'i', 'I' -> {
                        int n = optSize(4);
                        if (n > 8) {
                            throw new LuaError("integral size " + n + " is larger than limit of 8");
                        }
                        return new Item(c, n);
                    }
                    case 'c' -> {
                        return new Item(c, optSize(1));
                    }
                    case 's' -> {
                        return new Item(c, 0);
                    }
                    default -> throw new LuaError("invalid format option '" + c + "'");
                }
            }
            return null;
        }

        int padding(Item item, int offset) {
            if (item.letter == 'c' || item.letter == 's' || item.letter == 'x' || maxAlign <= 1) {
                return 0;
            }
            int align = Math.min(item.size, maxAlign);
            if ((align & (align - 1)) != 0) {
                throw new LuaError("alignment must be power of 2");
            }
            return (align - (offset & (align - 1))) & (align - 1);
        }
    }

    private static Varargs pack(Varargs args) {
        Format f = new Format(args.checkjstring(1));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 2;
        for (Format.Item item = f.next(); item != null; item = f.next()) {
            for (int p = f.padding(item, out.size()); p > 0; p--) {
                out.write(0);
            }
            switch (item.letter) {
                case 'x' -> out.write(0);
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' -> {
                    long v = (long) args.checkdouble(arg++);
                    writeInt(out, v, item.size, f.little);
                }
                case 'f' -> writeInt(out, Float.floatToIntBits((float) args.checkdouble(arg++)), 4, f.little);
                case 'd' -> writeInt(out, Double.doubleToLongBits(args.checkdouble(arg++)), 8, f.little);
                case 'c', 's' -> {
                    LuaString s = args.checkstring(arg++);
                    int n = item.letter == 'c' && item.size > 0 ? item.size : s.length();
                    if (item.letter == 'c' && item.size > s.length()) {
                        throw new LuaError("bad argument #" + (arg - 1) + " to 'pack' (string too short)");
                    }
                    for (int i = 0; i < n; i++) {
                        out.write(s.luaByte(i));
                    }
                    if (item.letter == 's') {
                        out.write(0);
                    }
                }
                default -> throw new LuaError("invalid format option '" + item.letter + "'");
            }
        }
        return LuaString.valueUsing(out.toByteArray());
    }

    private static void writeInt(ByteArrayOutputStream out, long v, int size, boolean little) {
        for (int i = 0; i < size; i++) {
            int shift = 8 * (little ? i : size - 1 - i);
            out.write(shift >= 64 ? (v < 0 ? 0xff : 0) : (int) (v >>> shift) & 0xff);
        }
    }

    private static Varargs unpack(Varargs args) {
        Format f = new Format(args.checkjstring(1));
        LuaString data = args.checkstring(2);
        int pos = args.optint(3, 1) - 1;
        if (pos < 0) {
            throw new LuaError("bad argument #3 to 'unpack' (offset must be 1 or greater)");
        }
        List<LuaValue> values = new ArrayList<>();
        for (Format.Item item = f.next(); item != null; item = f.next()) {
            pos += f.padding(item, pos);
            int size = item.size;
            if (item.letter == 'c' && size == 0) {
                if (values.isEmpty() || !values.getLast().isnumber()) {
                    throw new LuaError("format 'c0' needs a previous size");
                }
                size = values.removeLast().toint();
            }
            if (item.letter != 's' && pos + size > data.length()) {
                throw new LuaError("bad argument #2 to 'unpack' (data string too short)");
            }
            switch (item.letter) {
                case 'x' -> {
                }
                case 'b', 'h', 'l', 'i' -> values.add(LuaValue.valueOf((double) readInt(data, pos, size, f.little, true)));
                case 'B', 'H', 'L', 'T', 'I' -> {
                    long v = readInt(data, pos, size, f.little, false);
                    values.add(LuaValue.valueOf(v < 0 ? v + 18446744073709551616.0 : (double) v));
                }
                case 'f' -> values.add(LuaValue.valueOf(Float.intBitsToFloat((int) readInt(data, pos, 4, f.little, false))));
                case 'd' -> values.add(LuaValue.valueOf(Double.longBitsToDouble(readInt(data, pos, 8, f.little, false))));
                case 'c' -> values.add(data.substring(pos, pos + size));
                case 's' -> {
                    int end = pos;
                    while (end < data.length() && data.luaByte(end) != 0) {
                        end++;
                    }
                    if (end >= data.length()) {
                        throw new LuaError("unfinished string in data");
                    }
                    values.add(data.substring(pos, end));
                    size = end - pos + 1;
                }
                default -> throw new LuaError("invalid format option '" + item.letter + "'");
            }
            pos += size;
        }
        values.add(LuaValue.valueOf(pos + 1));
        return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
    }

    private static long readInt(LuaString data, int pos, int size, boolean little, boolean signed) {
        long v = 0;
        for (int i = 0; i < size; i++) {
            int b = data.luaByte(pos + (little ? size - 1 - i : i));
            v = (v << 8) | b;
        }
        if (signed && size < 8 && (v & (1L << (size * 8 - 1))) != 0) {
            v -= 1L << (size * 8);
        }
        return v;
    }
}
