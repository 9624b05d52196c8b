package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.RedisHashes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/** Hash commands: argument parsing and replies over {@link RedisHashes}, which owns the storage rules. */
final class HashCommands {

    private HashCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("hset", -4, "write denyoom fast", 1, 1, 1, c -> c.reply().integer(hset(c, false)));
        b.add("hmset", -4, "write denyoom fast", 1, 1, 1, c -> {
            hset(c, false);
            c.reply().ok();
        });
        b.add("hsetnx", 4, "write denyoom fast", 1, 1, 1, c -> c.reply().integer(hset(c, true)));
        b.add("hget", 3, "readonly fast", 1, 1, 1, HashCommands::hget);
        b.add("hmget", -3, "readonly fast", 1, 1, 1, HashCommands::hmget);
        b.add("hdel", -3, "write fast", 1, 1, 1, HashCommands::hdel);
        b.add("hlen", 2, "readonly fast", 1, 1, 1, c -> c.reply().integer(c.types().hashes().length(c.arg(1))));
        b.add("hexists", 3, "readonly fast", 1, 1, 1,
                c -> c.reply().integer(c.types().hashes().get(c.arg(1), c.arg(2)) != null ? 1 : 0));
        b.add("hstrlen", 3, "readonly fast", 1, 1, 1, c -> {
            byte[] v = c.types().hashes().get(c.arg(1), c.arg(2));
            c.reply().integer(v == null ? 0 : v.length);
        });
        b.add("hgetall", 2, "readonly", 1, 1, 1, c -> readAll(c, true, true));
        b.add("hkeys", 2, "readonly", 1, 1, 1, c -> readAll(c, true, false));
        b.add("hvals", 2, "readonly", 1, 1, 1, c -> readAll(c, false, true));
        b.add("hincrby", 4, "write denyoom fast", 1, 1, 1, HashCommands::hincrBy);
        b.add("hincrbyfloat", 4, "write denyoom fast", 1, 1, 1, HashCommands::hincrByFloat);
        b.add("hscan", -3, "readonly", 1, 1, 1, HashCommands::hscan);
        HashRandomField.register(b);
    }

    /** HSET/HMSET/HSETNX; returns how many fields were added (not updated). */
    private static long hset(CommandCall c, boolean onlyIfAbsent) {
        if (c.argCount() % 2 != 0) {
            throw RedisError.wrongArity(c.spec().name());
        }
        return c.types().hashes().set(c.arg(1), argsFrom(c, 2), onlyIfAbsent);
    }

    private static List<byte[]> argsFrom(CommandCall c, int first) {
        return Arrays.asList(c.args()).subList(first, c.argCount());
    }

    private static void hget(CommandCall c) {
        c.reply().bulk(c.types().hashes().get(c.arg(1), c.arg(2)));
    }

    private static void hmget(CommandCall c) {
        List<byte[]> values = c.types().hashes().getAll(c.arg(1), argsFrom(c, 2));
        c.reply().arrayHeader(values.size());
        values.forEach(c.reply()::bulk);
    }

    private static void hdel(CommandCall c) {
        c.reply().integer(c.types().hashes().delete(c.arg(1), argsFrom(c, 2)));
    }

    private static void readAll(CommandCall c, boolean fields, boolean values) {
        List<byte[]> out = new ArrayList<>();
        c.types().hashes().forEach(c.arg(1), null, (f, v) -> {
            if (fields) {
                out.add(f);
            }
            if (values) {
                out.add(v);
            }
            return true;
        });
        Reply r = c.reply();
        if (fields && values) {
            r.mapHeader(out.size() / 2);
        } else {
            r.arrayHeader(out.size());
        }
        out.forEach(r::bulk);
    }

    private static void hincrBy(CommandCall c) {
        long delta = c.argLong(3);
        long result = updateField(c, current -> {
            long value = 0;
            if (current != null) {
                Long parsed = Args.tryParseLong(current);
                if (parsed == null) {
                    throw new RedisError("ERR hash value is not an integer");
                }
                value = parsed;
            }
            try {
                return Args.bytes(Math.addExact(value, delta));
            } catch (ArithmeticException e) {
                throw new RedisError(RedisError.OVERFLOW);
            }
        });
        c.reply().integer(result);
    }

    private static void hincrByFloat(CommandCall c) {
        double delta = Args.parseDouble(c.arg(3));
        if (Double.isNaN(delta) || Double.isInfinite(delta)) {
            throw new RedisError("ERR value is NaN or Infinity");
        }
        byte[][] text = new byte[1][];
        updateField(c, current -> {
            double value = 0;
            if (current != null) {
                try {
                    value = Args.parseDouble(current);
                } catch (RedisError e) {
                    throw new RedisError("ERR hash value is not a float");
                }
            }
            double sum = value + delta;
            if (Double.isNaN(sum) || Double.isInfinite(sum)) {
                throw new RedisError("ERR increment would produce NaN or Infinity");
            }
            text[0] = Reply.formatDouble(sum).getBytes(StandardCharsets.US_ASCII);
            return text[0];
        });
        c.reply().bulk(text[0]);
    }

    /** Read-modify-write of one field; returns the new value parsed as a long if it is one. */
    private static long updateField(CommandCall c, UnaryOperator<byte[]> change) {
        Long asLong = Args.tryParseLong(c.types().hashes().update(c.arg(1), c.arg(2), change));
        return asLong == null ? 0 : asLong;
    }

    private static void hscan(CommandCall c) {
        long cursor = KeyCommands.parseCursor(c.arg(2));
        CollectionScan options = CollectionScan.parse(c, true);
        Glob glob = options.glob();
        long count = options.count();
        boolean noValues = options.noValues();
        byte[] key = c.arg(1);
        byte[] owner = CollectionScan.cursorOwner('h', key);
        byte[] resume = c.server().scanCursors().resume(owner, cursor);
        List<byte[]> out = new ArrayList<>();
        byte[][] last = new byte[1][];
        long[] examined = {0};
        final Glob pattern = glob;
        final boolean withValues = !noValues;
        final long limit = count;
        boolean[] more = {false};
        c.types().hashes().forEach(key, resume, (f, v) -> {
            if (examined[0] == limit) {
                more[0] = true;
                return false;
            }
            examined[0]++;
            last[0] = f;
            if (pattern == null || pattern.matches(f)) {
                out.add(f);
                if (withValues) {
                    out.add(v);
                }
            }
            return true;
        });
        boolean exhausted = !more[0];
        long next = exhausted ? 0 : c.server().scanCursors().save(owner, last[0]);
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Long.toString(next));
        r.arrayHeader(out.size());
        out.forEach(r::bulk);
    }
}
