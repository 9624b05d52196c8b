package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.RedisStrings;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** String commands: argument parsing and replies over {@link RedisStrings}, which owns the storage rules. */
final class StringCommands {

    private StringCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("get", 2, "readonly fast", 1, 1, 1, StringCommands::get);
        b.add("set", -3, "write denyoom", 1, 1, 1, StringCommands::set);
        b.add("setnx", 3, "write denyoom fast", 1, 1, 1,
                c -> c.reply().integer(c.types().strings().setIfAbsent(c.arg(1), c.arg(2)) ? 1 : 0));
        b.add("setex", 4, "write denyoom", 1, 1, 1, c -> setWithExpiry(c, Expiry.Unit.SECONDS, "setex"));
        b.add("psetex", 4, "write denyoom", 1, 1, 1, c -> setWithExpiry(c, Expiry.Unit.MILLISECONDS, "psetex"));
        b.add("getset", 3, "write denyoom fast", 1, 1, 1,
                c -> c.reply().bulk(c.types().strings().getAndSet(c.arg(1), c.arg(2))));
        b.add("getdel", 2, "write fast", 1, 1, 1, c -> c.reply().bulk(c.types().strings().getAndDelete(c.arg(1))));
        b.add("getex", -2, "write fast", 1, 1, 1, StringCommands::getEx);
        b.add("mget", -2, "readonly fast", 1, -1, 1, StringCommands::mget);
        b.add("mset", -3, "write denyoom", 1, -1, 2, c -> {
            setPairs(c, false);
            c.reply().ok();
        });
        b.add("msetnx", -3, "write denyoom", 1, -1, 2, c -> c.reply().integer(setPairs(c, true) ? 1 : 0));
        b.add("append", 3, "write denyoom fast", 1, 1, 1,
                c -> c.reply().integer(c.types().strings().append(c.arg(1), c.arg(2))));
        b.add("strlen", 2, "readonly fast", 1, 1, 1, c -> c.reply().integer(c.types().strings().length(c.arg(1))));
        b.add("getrange", 4, "readonly", 1, 1, 1, StringCommands::getRange);
        b.add("substr", 4, "readonly", 1, 1, 1, StringCommands::getRange);
        b.add("setrange", 4, "write denyoom", 1, 1, 1, StringCommands::setRange);
        b.add("incr", 2, "write denyoom fast", 1, 1, 1, c -> incrBy(c, 1));
        b.add("decr", 2, "write denyoom fast", 1, 1, 1, c -> incrBy(c, -1));
        b.add("incrby", 3, "write denyoom fast", 1, 1, 1, c -> incrBy(c, c.argLong(2)));
        b.add("decrby", 3, "write denyoom fast", 1, 1, 1, c -> {
            long by = c.argLong(2);
            if (by == Long.MIN_VALUE) {
                throw new RedisError("ERR decrement would overflow");
            }
            incrBy(c, -by);
        });
        b.add("incrbyfloat", 3, "write denyoom fast", 1, 1, 1, StringCommands::incrByFloat);
    }

    private static List<byte[]> argsFrom(CommandCall c, int first) {
        return Arrays.asList(c.args()).subList(first, c.argCount());
    }

    private static void get(CommandCall c) {
        c.reply().bulk(c.types().strings().get(c.arg(1)));
    }

    private static void set(CommandCall c) {
        SetOptions o = SetOptions.parse(c.args());
        long expireAt = o.expireAt(c.keyspace().now());
        RedisStrings.SetOutcome outcome = c.types().strings().set(c.arg(1), c.arg(2), expireAt, o.nx(), o.xx(),
                o.get(), o.keepTtl());
        if (o.get()) {
            c.reply().bulk(outcome.previousValue());
        } else if (outcome.written()) {
            c.reply().ok();
        } else {
            c.reply().nil();
        }
    }

    private static void setWithExpiry(CommandCall c, Expiry.Unit unit, String name) {
        long expireAt = Expiry.absolute(c.argLong(2), unit, c.keyspace().now(), name, true);
        c.types().strings().set(c.arg(1), c.arg(3), expireAt);
        c.reply().ok();
    }

    private static void getEx(CommandCall c) {
        Expiry.Unit unit = null;
        boolean persist = false;
        long amount = 0;
        if (c.argCount() > 2) {
            if (c.argCount() == 3 && c.argIs(2, "persist")) {
                persist = true;
            } else if (c.argCount() == 4 && SetOptions.expiryUnit(c.arg(2)) != null) {
                unit = SetOptions.expiryUnit(c.arg(2));
                amount = c.argLong(3);
            } else {
                throw RedisError.syntax();
            }
        }
        long expireAt = unit == null ? 0 : Expiry.absolute(amount, unit, c.keyspace().now(), "getex", true);
        c.reply().bulk(c.types().strings().getAndExpire(c.arg(1), unit != null || persist, expireAt));
    }

    private static void mget(CommandCall c) {
        c.reply().arrayHeader(c.argCount() - 1);
        for (int i = 1; i < c.argCount(); i++) {
            c.reply().bulk(c.types().strings().getIfString(c.arg(i)));
        }
    }

    private static boolean setPairs(CommandCall c, boolean onlyIfNoneExist) {
        if (c.argCount() % 2 != 1) {
            throw RedisError.wrongArity(c.spec().name());
        }
        return c.types().strings().setAll(argsFrom(c, 1), onlyIfNoneExist);
    }

    private static void getRange(CommandCall c) {
        long start = c.argLong(2);
        long end = c.argLong(3);
        byte[] value = c.types().strings().get(c.arg(1));
        if (value == null) {
            c.reply().bulk(new byte[0]);
            return;
        }
        long len = value.length;
        if (start < 0 && end < 0 && start > end) {
            c.reply().bulk(new byte[0]);
            return;
        }
        if (start < 0) {
            start = Math.max(0, len + start);
        }
        if (end < 0) {
            end = Math.max(0, len + end);
        }
        if (end >= len) {
            end = len - 1;
        }
        if (len == 0 || start > end) {
            c.reply().bulk(new byte[0]);
            return;
        }
        c.reply().bulk(Arrays.copyOfRange(value, (int) start, (int) end + 1));
    }

    private static void setRange(CommandCall c) {
        long offset = c.argLong(2);
        if (offset < 0) {
            throw new RedisError("ERR offset is out of range");
        }
        c.reply().integer(c.types().strings().setRange(c.arg(1), offset, c.arg(3)));
    }

    private static void incrBy(CommandCall c, long delta) {
        byte[] result = c.types().strings().replace(c.arg(1), current -> {
            long value = 0;
            if (current != null) {
                Long parsed = Args.tryParseLong(current);
                if (parsed == null) {
                    throw RedisError.notInteger();
                }
                value = parsed;
            }
            try {
                return Args.bytes(Math.addExact(value, delta));
            } catch (ArithmeticException e) {
                throw new RedisError(RedisError.OVERFLOW);
            }
        });
        c.reply().integer(Args.parseLong(result));
    }

    private static void incrByFloat(CommandCall c) {
        double delta = Args.parseDouble(c.arg(2));
        byte[] text = c.types().strings().replace(c.arg(1), current -> {
            double result = (current == null ? 0 : Args.parseDouble(current)) + delta;
            if (Double.isNaN(result) || Double.isInfinite(result)) {
                throw new RedisError("ERR increment would produce NaN or Infinity");
            }
            return Reply.formatDouble(result).getBytes(StandardCharsets.US_ASCII);
        });
        c.reply().bulk(text);
    }
}
