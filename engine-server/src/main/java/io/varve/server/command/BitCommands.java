package io.varve.server.command;

import io.varve.server.resp.RedisError;

import java.util.Arrays;
import java.util.Locale;

/**
 * Bitmap commands on string values: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP. Bit 0 is the most significant
 * bit of the first byte, as in Redis. A write edits the value through
 * {@link io.varve.server.types.RedisStrings#edit} (under the key's lock, keeping its expiry); offsets are
 * bounded by proto-max-bulk-len as in Redis, and the grown value by what one engine entry can hold, which
 * bounds the memory one command can make the server allocate.
 */
final class BitCommands {

    static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";

    private BitCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("setbit", 4, "write denyoom", 1, 1, 1, BitCommands::setBit);
        b.add("getbit", 3, "readonly fast", 1, 1, 1, BitCommands::getBit);
        b.add("bitcount", -2, "readonly", 1, 1, 1, BitCommands::bitCount);
        b.add("bitpos", -3, "readonly", 1, 1, 1, BitCommands::bitPos);
        b.add("bitop", -4, "write denyoom", 2, -1, 1, BitCommands::bitOp);
        BitfieldCommand.register(b);
        LcsCommand.register(b);
    }

    /** A bit offset argument: a non-negative integer whose byte lies within proto-max-bulk-len. */
    static long bitOffset(CommandCall c, byte[] arg) {
        Long offset = Args.tryParseLong(arg);
        if (offset == null || offset < 0 || (offset >>> 3) >= c.server().maxBulkLength()) {
            throw new RedisError(BAD_OFFSET);
        }
        return offset;
    }

    /** The string value of {@code key}, an empty array when absent; WRONGTYPE for other types. */
    static byte[] valueOrEmpty(CommandCall c, byte[] key) {
        byte[] value = c.types().strings().get(key);
        return value == null ? new byte[0] : value;
    }

    static int bit(byte[] value, long offset) {
        long index = offset >>> 3;
        if (index >= value.length) {
            return 0;
        }
        return (value[(int) index] >> (7 - (int) (offset & 7))) & 1;
    }

    private static void setBit(CommandCall c) {
        long offset = bitOffset(c, c.arg(2));
        byte[] bitArg = c.arg(3);
        if (bitArg.length != 1 || (bitArg[0] != '0' && bitArg[0] != '1')) {
            throw new RedisError("ERR bit is not an integer or out of range");
        }
        int on = bitArg[0] - '0';
        int index = (int) (offset >>> 3);
        int mask = 1 << (7 - (int) (offset & 7));
        int[] old = new int[1];
        c.types().strings().edit(c.arg(1), index + 1L, value -> {
            old[0] = bit(value, offset);
            value[index] = (byte) (on == 1 ? value[index] | mask : value[index] & ~mask);
        });
        c.reply().integer(old[0]);
    }

    private static void getBit(CommandCall c) {
        long offset = bitOffset(c, c.arg(2));
        c.reply().integer(bit(valueOrEmpty(c, c.arg(1)), offset));
    }

    /** A BITCOUNT/BITPOS range, normalised to bit positions {@code [first, last]} (empty when first > last). */
    private record BitRange(long first, long last) {
        boolean isEmpty() {
            return first > last;
        }
    }

    /**
     * Normalises {@code [start, end]} in bytes or bits against a value of {@code length} bytes with Redis's
     * rules: negative indexes count from the end, then both are clamped to the value.
     */
    private static BitRange range(long start, long end, boolean bits, long length) {
        long total = bits ? length * 8 : length;
        if (start < 0 && end < 0 && start > end) {
            return new BitRange(1, 0);
        }
        if (start < 0) {
            start = Math.max(0, total + start);
        }
        if (end < 0) {
            end = Math.max(0, total + end);
        }
        if (end >= total) {
            end = total - 1;
        }
        if (start > end) {
            return new BitRange(1, 0);
        }
        return bits ? new BitRange(start, end) : new BitRange(start * 8, end * 8 + 7);
    }

    /** Parses the optional BYTE|BIT unit at {@code index}; true for BIT. */
    private static boolean unit(CommandCall c, int index) {
        if (index >= c.argCount()) {
            return false;
        }
        if (c.argIs(index, "bit")) {
            return true;
        }
        if (c.argIs(index, "byte")) {
            return false;
        }
        throw RedisError.syntax();
    }

    private static void bitCount(CommandCall c) {
        int n = c.argCount();
        if (n == 3 || n > 5) {
            throw RedisError.syntax();
        }
        long start = 0;
        long end = -1;
        boolean bits = false;
        if (n >= 4) {
            start = c.argLong(2);
            end = c.argLong(3);
            bits = unit(c, 4);
        }
        byte[] value = valueOrEmpty(c, c.arg(1));
        BitRange r = range(start, end, bits, value.length);
        c.reply().integer(r.isEmpty() ? 0 : countOnes(value, r.first, r.last));
    }

    /** Set bits in bit positions {@code [first, last]} of {@code value}. */
    static long countOnes(byte[] value, long first, long last) {
        long count = 0;
        long p = first;
        while (p <= last && (p & 7) != 0) {
            count += bit(value, p++);
        }
        while (p + 7 <= last) {
            count += Integer.bitCount(value[(int) (p >>> 3)] & 0xFF);
            p += 8;
        }
        while (p <= last) {
            count += bit(value, p++);
        }
        return count;
    }

    private static void bitPos(CommandCall c) {
        byte[] bitArg = c.arg(2);
        Long wanted = Args.tryParseLong(bitArg);
        if (wanted == null) {
            throw RedisError.notInteger();
        }
        if (wanted != 0 && wanted != 1) {
            throw new RedisError("ERR The bit argument must be 1 or 0.");
        }
        int n = c.argCount();
        if (n > 6) {
            throw RedisError.syntax();
        }
        long start = n >= 4 ? c.argLong(3) : 0;
        boolean endGiven = n >= 5;
        long end = endGiven ? c.argLong(4) : -1;
        boolean bits = unit(c, 5);
        byte[] value = c.types().strings().get(c.arg(1));
        if (value == null) {
            c.reply().integer(wanted == 1 ? -1 : 0);
            return;
        }
        BitRange r = range(start, end, bits, value.length);
        if (r.isEmpty()) {
            c.reply().integer(-1);
            return;
        }
        for (long p = r.first; p <= r.last; p++) {
            if ((p & 7) == 0 && p + 7 <= r.last) {
                int b = value[(int) (p >>> 3)] & 0xFF;
                if (b == (wanted == 1 ? 0 : 0xFF)) {
                    p += 7; // nothing to find in this byte
                    continue;
                }
            }
            if (bit(value, p) == wanted) {
                c.reply().integer(p);
                return;
            }
        }
        // Looking for a clear bit with no end given: the value counts as padded with zeros on the right.
        c.reply().integer(wanted == 0 && !endGiven ? r.last + 1 : -1);
    }

    private static void bitOp(CommandCall c) {
        String op;
        if (c.argIs(1, "and") || c.argIs(1, "or") || c.argIs(1, "xor") || c.argIs(1, "not")) {
            op = c.argText(1).toLowerCase(Locale.ROOT);
        } else {
            throw RedisError.syntax();
        }
        if (op.equals("not") && c.argCount() != 4) {
            throw new RedisError("ERR BITOP NOT must be called with a single source key.");
        }
        boolean not = op.equals("not");
        int length = c.types().strings().combineInto(c.arg(2), Arrays.asList(c.args()).subList(3, c.argCount()),
                values -> combine(op, not, values));
        c.reply().integer(length);
    }

    private static byte[] combine(String op, boolean not, byte[][] values) {
        int longest = 0;
        for (byte[] value : values) {
            longest = Math.max(longest, value.length);
        }
        byte[] result = new byte[longest];
        for (int j = 0; j < longest; j++) {
            int acc = j < values[0].length ? values[0][j] & 0xFF : 0;
            if (not) {
                acc = ~acc & 0xFF;
            }
            for (int i = 1; i < values.length; i++) {
                int v = j < values[i].length ? values[i][j] & 0xFF : 0;
                acc = switch (op) {
                    case "and" -> acc & v;
                    case "or" -> acc | v;
                    default -> acc ^ v;
                };
            }
            result[j] = (byte) acc;
        }
        return result;
    }
}
