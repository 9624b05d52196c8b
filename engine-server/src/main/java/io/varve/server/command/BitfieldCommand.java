package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * BITFIELD and BITFIELD_RO: GET, SET and INCRBY of signed (i1..i64) and unsigned (u1..u63) integers at
 * any bit offset ("#n" means n times the width), with OVERFLOW WRAP (default), SAT or FAIL applying to the
 * operations after it. Operations run in order on one copy of the value, which is written back once if
 * anything wrote. Overflow is judged on the exact sum (BigInteger), so no width needs special cases.
 */
final class BitfieldCommand {

    private enum Kind { GET, SET, INCRBY }

    private enum Overflow { WRAP, SAT, FAIL }

    private record Op(Kind kind, boolean signed, int bits, long offset, long argument, Overflow overflow) {
    }

    private BitfieldCommand() {
    }

    static void register(CommandTable.Builder b) {
        b.add("bitfield", -2, "write denyoom", 1, 1, 1, c -> run(c, false));
        b.add("bitfield_ro", -2, "readonly fast", 1, 1, 1, c -> run(c, true));
    }

    private static List<Op> parse(CommandCall c, boolean readOnly) {
        List<Op> ops = new ArrayList<>();
        Overflow overflow = Overflow.WRAP;
        for (int i = 2; i < c.argCount(); i++) {
            int left = c.argCount() - i - 1;
            Kind kind;
            if (c.argIs(i, "get") && left >= 2) {
                kind = Kind.GET;
            } else if (c.argIs(i, "set") && left >= 3) {
                kind = Kind.SET;
            } else if (c.argIs(i, "incrby") && left >= 3) {
                kind = Kind.INCRBY;
            } else if (c.argIs(i, "overflow") && left >= 1) {
                i++;
                if (c.argIs(i, "wrap")) {
                    overflow = Overflow.WRAP;
                } else if (c.argIs(i, "sat")) {
                    overflow = Overflow.SAT;
                } else if (c.argIs(i, "fail")) {
                    overflow = Overflow.FAIL;
                } else {
                    throw new RedisError("ERR Invalid OVERFLOW type specified");
                }
                continue;
            } else {
                throw RedisError.syntax();
            }
            byte[] type = c.arg(i + 1);
            boolean signed = type.length > 0 && (type[0] == 'i' || type[0] == 'I');
            Long width = type.length > 1 && (signed || type[0] == 'u' || type[0] == 'U')
                    ? Args.tryParseLong(Arrays.copyOfRange(type, 1, type.length)) : null;
            if (width == null || width < 1 || (signed && width > 64) || (!signed && width > 63)) {
                throw new RedisError("ERR Invalid bitfield type. Use something like i16 u8. "
                        + "Note that u64 is not supported but i64 is.");
            }
            int bits = width.intValue();
            long offset = offset(c, c.arg(i + 2), bits);
            long argument = 0;
            if (kind != Kind.GET) {
                argument = c.argLong(i + 3);
            }
            if (readOnly && kind != Kind.GET) {
                throw new RedisError("ERR BITFIELD_RO only supports the GET subcommand");
            }
            ops.add(new Op(kind, signed, bits, offset, argument, overflow));
            i += kind == Kind.GET ? 2 : 3;
        }
        return ops;
    }

    /** A field offset: bits, or "#n" for n fields of this width; the field's last byte within proto-max-bulk-len. */
    private static long offset(CommandCall c, byte[] arg, int bits) {
        boolean fields = arg.length > 0 && arg[0] == '#';
        Long n = Args.tryParseLong(fields ? Arrays.copyOfRange(arg, 1, arg.length) : arg);
        if (n == null || n < 0 || (fields && n > Long.MAX_VALUE / bits)) {
            throw new RedisError(BitCommands.BAD_OFFSET);
        }
        long offset = fields ? n * bits : n;
        if (offset > Long.MAX_VALUE - bits || ((offset + bits - 1) >>> 3) >= c.server().maxBulkLength()) {
            throw new RedisError(BitCommands.BAD_OFFSET);
        }
        return offset;
    }

    private static void run(CommandCall c, boolean readOnly) {
        List<Op> ops = parse(c, readOnly);
        boolean writes = ops.stream().anyMatch(o -> o.kind != Kind.GET);
        byte[] key = c.arg(1);
        if (!writes) {
            byte[] value = BitCommands.valueOrEmpty(c, key);
            Reply r = c.reply();
            r.arrayHeader(ops.size());
            for (Op op : ops) {
                r.integer(read(value, op.offset, op.bits, op.signed));
            }
            return;
        }
        long highest = 0;
        for (Op op : ops) {
            if (op.kind != Kind.GET) {
                highest = Math.max(highest, op.offset + op.bits);
            }
        }
        // As Redis does, the value grows to hold every field written, even one that FAIL leaves alone.
        long needed = (highest + 7) >>> 3;
        Long[] results = new Long[ops.size()];
        c.types().strings().edit(key, needed, value -> {
            for (int i = 0; i < ops.size(); i++) {
                results[i] = apply(value, ops.get(i));
            }
        });
        Reply r = c.reply();
        r.arrayHeader(results.length);
        for (Long result : results) {
            if (result == null) {
                r.nil();
            } else {
                r.integer(result);
            }
        }
    }

    /** Runs one operation on {@code value}; returns its reply, null when FAIL refused it. */
    private static Long apply(byte[] value, Op op) {
        long old = read(value, op.offset, op.bits, op.signed);
        if (op.kind == Kind.GET) {
            return old;
        }
        BigInteger exact = op.kind == Kind.SET
                ? (op.signed ? BigInteger.valueOf(op.argument) : new BigInteger(Long.toUnsignedString(op.argument)))
                : BigInteger.valueOf(old).add(BigInteger.valueOf(op.argument));
        BigInteger min = op.signed ? BigInteger.ONE.shiftLeft(op.bits - 1).negate() : BigInteger.ZERO;
        BigInteger max = op.signed ? BigInteger.ONE.shiftLeft(op.bits - 1).subtract(BigInteger.ONE)
                : BigInteger.ONE.shiftLeft(op.bits).subtract(BigInteger.ONE);
        long stored;
        if (exact.compareTo(min) >= 0 && exact.compareTo(max) <= 0) {
            stored = exact.longValue();
        } else {
            switch (op.overflow) {
                case FAIL -> {
                    return null;
                }
                case SAT -> stored = (exact.signum() < 0 ? min : max).longValue();
                default -> stored = wrap(exact.longValue(), op.bits, op.signed);
            }
        }
        write(value, op.offset, op.bits, stored);
        return op.kind == Kind.SET ? old : stored;
    }

    /** The low {@code bits} bits of {@code v}, sign-extended when signed. */
    private static long wrap(long v, int bits, boolean signed) {
        if (bits == 64) {
            return v;
        }
        long low = v & ((1L << bits) - 1);
        return signed && (low >>> (bits - 1)) != 0 ? low | (-1L << bits) : low;
    }

    /** The field of {@code bits} at bit {@code offset} (MSB first), reading beyond the value as zeros. */
    static long read(byte[] value, long offset, int bits, boolean signed) {
        long v = 0;
        for (int i = 0; i < bits; i++) {
            v = (v << 1) | BitCommands.bit(value, offset + i);
        }
        return signed ? wrap(v, bits, true) : v;
    }

    /** Writes the low {@code bits} bits of {@code v} at bit {@code offset}; the value must be long enough. */
    static void write(byte[] value, long offset, int bits, long v) {
        for (int i = 0; i < bits; i++) {
            long p = offset + i;
            int mask = 1 << (7 - (int) (p & 7));
            int index = (int) (p >>> 3);
            if (((v >>> (bits - 1 - i)) & 1) != 0) {
                value[index] |= (byte) mask;
            } else {
                value[index] &= (byte) ~mask;
            }
        }
    }
}
