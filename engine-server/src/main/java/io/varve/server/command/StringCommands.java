package io.varve.server.command;

import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * String commands. A string lives inline in its key's metadata record, so a GET is one engine lookup.
 * Every command that writes holds the key's lock from its first read to its commit (see
 * {@link Keyspace}), which is what makes INCR, APPEND, SETRANGE, SET NX/XX/GET and MSETNX atomic.
 */
final class StringCommands {

    private StringCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("get", 2, "readonly fast", 1, 1, 1, StringCommands::get);
        b.add("set", -3, "write denyoom", 1, 1, 1, StringCommands::set);
        b.add("setnx", 3, "write denyoom fast", 1, 1, 1, c -> {
            boolean written = setIf(c, c.arg(1), c.arg(2), true);
            c.reply().integer(written ? 1 : 0);
        });
        b.add("setex", 4, "write denyoom", 1, 1, 1, c -> setWithExpiry(c, Expiry.Unit.SECONDS, "setex"));
        b.add("psetex", 4, "write denyoom", 1, 1, 1, c -> setWithExpiry(c, Expiry.Unit.MILLISECONDS, "psetex"));
        b.add("getset", 3, "write denyoom fast", 1, 1, 1, StringCommands::getSet);
        b.add("getdel", 2, "write fast", 1, 1, 1, StringCommands::getDel);
        b.add("getex", -2, "write fast", 1, 1, 1, StringCommands::getEx);
        b.add("mget", -2, "readonly fast", 1, -1, 1, StringCommands::mget);
        b.add("mset", -3, "write denyoom", 1, -1, 2, StringCommands::mset);
        b.add("msetnx", -3, "write denyoom", 1, -1, 2, StringCommands::msetnx);
        b.add("append", 3, "write denyoom fast", 1, 1, 1, StringCommands::append);
        b.add("strlen", 2, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.STRING);
            c.reply().integer(meta == null ? 0 : meta.value().length);
        });
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

    /** The string value of {@code key}; null if absent; WRONGTYPE for other types. */
    private static byte[] value(Keyspace ks, byte[] key) {
        Metadata meta = ks.lookup(key, RedisType.STRING);
        return meta == null ? null : meta.value();
    }

    /** Writes a string (replacing any type); a past expiry deletes instead. Caller holds the key's lock. */
    static void store(Keyspace ks, WriteBatch batch, byte[] key, byte[] value, long expireAt) {
        if (expireAt != 0 && expireAt <= ks.now()) {
            ks.deleteMetadata(batch, key);
        } else {
            ks.putMetadata(batch, key, Metadata.string(value, expireAt));
        }
    }

    private static void storeNow(Keyspace ks, byte[] key, byte[] value, long expireAt) {
        WriteBatch batch = new WriteBatch();
        store(ks, batch, key, value, expireAt);
        ks.commit(batch);
    }

    private static void get(CommandCall c) {
        c.reply().bulk(value(c.keyspace(), c.arg(1)));
    }

    private static void set(CommandCall c) {
        SetCommandOptions o = SetCommandOptions.parse(c.args());
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        long expireAt = o.expireAt(ks.now());
        try (LockStripes.Held held = ks.lock(key)) {
            // A plain SET overwrites whatever is there: skip the lookup (it is the costly part of a write).
            Metadata meta = o.blind() ? null : ks.lookup(key);
            if (o.get() && meta != null && meta.type() != RedisType.STRING) {
                throw RedisError.wrongType();
            }
            boolean write = !(o.nx() && meta != null) && !(o.xx() && meta == null);
            if (write) {
                long keep = o.keepTtl() && meta != null ? meta.expireAt() : expireAt;
                storeNow(ks, key, c.arg(2), keep);
            }
            if (o.get()) {
                c.reply().bulk(meta == null ? null : meta.value());
            } else if (write) {
                c.reply().ok();
            } else {
                c.reply().nil();
            }
        }
    }

    /** Sets when the key is absent (onlyIfAbsent) or unconditionally; returns whether it wrote. */
    private static boolean setIf(CommandCall c, byte[] key, byte[] value, boolean onlyIfAbsent) {
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lock(key)) {
            if (onlyIfAbsent && ks.header(key) != null) {
                return false;
            }
            storeNow(ks, key, value, 0);
            return true;
        }
    }

    private static void setWithExpiry(CommandCall c, Expiry.Unit unit, String name) {
        Keyspace ks = c.keyspace();
        long expireAt = Expiry.absolute(c.argLong(2), unit, ks.now(), name, true);
        try (LockStripes.Held held = ks.lock(c.arg(1))) {
            storeNow(ks, c.arg(1), c.arg(3), expireAt);
        }
        c.reply().ok();
    }

    private static void getSet(CommandCall c) {
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lock(c.arg(1))) {
            byte[] old = value(ks, c.arg(1));
            storeNow(ks, c.arg(1), c.arg(2), 0);
            c.reply().bulk(old);
        }
    }

    private static void getDel(CommandCall c) {
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lock(c.arg(1))) {
            byte[] old = value(ks, c.arg(1));
            if (old != null) {
                WriteBatch batch = new WriteBatch();
                ks.deleteMetadata(batch, c.arg(1));
                ks.commit(batch);
            }
            c.reply().bulk(old);
        }
    }

    private static void getEx(CommandCall c) {
        Keyspace ks = c.keyspace();
        Expiry.Unit unit = null;
        boolean persist = false;
        long amount = 0;
        if (c.argCount() > 2) {
            if (c.argCount() == 3 && c.argIs(2, "persist")) {
                persist = true;
            } else if (c.argCount() == 4 && SetCommandOptions.expiryUnit(c.arg(2)) != null) {
                unit = SetCommandOptions.expiryUnit(c.arg(2));
                amount = c.argLong(3);
            } else {
                throw RedisError.syntax();
            }
        }
        long expireAt = unit == null ? 0 : Expiry.absolute(amount, unit, ks.now(), "getex", true);
        try (LockStripes.Held held = ks.lock(c.arg(1))) {
            Metadata meta = ks.lookup(c.arg(1), RedisType.STRING);
            if (meta != null && (unit != null || (persist && meta.hasExpiry()))) {
                storeNow(ks, c.arg(1), meta.value(), expireAt);
            }
            c.reply().bulk(meta == null ? null : meta.value());
        }
    }

    private static void mget(CommandCall c) {
        Keyspace ks = c.keyspace();
        c.reply().arrayHeader(c.argCount() - 1);
        for (int i = 1; i < c.argCount(); i++) {
            Metadata meta = ks.lookup(c.arg(i));
            c.reply().bulk(meta != null && meta.type() == RedisType.STRING ? meta.value() : null);
        }
    }

    private static byte[][] keysOfPairs(CommandCall c) {
        if (c.argCount() % 2 != 1) {
            throw RedisError.wrongArity(c.spec().name());
        }
        byte[][] keys = new byte[(c.argCount() - 1) / 2][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = c.arg(1 + 2 * i);
        }
        return keys;
    }

    private static void mset(CommandCall c) {
        byte[][] keys = keysOfPairs(c);
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lockAll(keys)) {
            WriteBatch batch = new WriteBatch();
            for (int i = 1; i < c.argCount(); i += 2) {
                store(ks, batch, c.arg(i), c.arg(i + 1), 0);
            }
            ks.commit(batch);
        }
        c.reply().ok();
    }

    private static void msetnx(CommandCall c) {
        byte[][] keys = keysOfPairs(c);
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lockAll(keys)) {
            for (byte[] key : keys) {
                if (ks.header(key) != null) {
                    c.reply().integer(0);
                    return;
                }
            }
            WriteBatch batch = new WriteBatch();
            for (int i = 1; i < c.argCount(); i += 2) {
                store(ks, batch, c.arg(i), c.arg(i + 1), 0);
            }
            ks.commit(batch);
        }
        c.reply().integer(1);
    }

    private static void checkSize(CommandCall c, long length) {
        if (length > c.server().maxBulkLength()) {
            throw new RedisError("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        }
    }

    private static void append(CommandCall c) {
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.STRING);
            byte[] extra = c.arg(2);
            byte[] result;
            if (meta == null) {
                result = extra;
            } else {
                checkSize(c, (long) meta.value().length + extra.length);
                result = Arrays.copyOf(meta.value(), meta.value().length + extra.length);
                System.arraycopy(extra, 0, result, meta.value().length, extra.length);
            }
            storeNow(ks, key, result, meta == null ? 0 : meta.expireAt());
            c.reply().integer(result.length);
        }
    }

    private static void getRange(CommandCall c) {
        long start = c.argLong(2);
        long end = c.argLong(3);
        byte[] value = value(c.keyspace(), c.arg(1));
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
        byte[] patch = c.arg(3);
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.STRING);
            byte[] current = meta == null ? new byte[0] : meta.value();
            if (patch.length == 0) {
                c.reply().integer(current.length);
                return;
            }
            checkSize(c, offset + patch.length);
            byte[] result = Arrays.copyOf(current, (int) Math.max(current.length, offset + patch.length));
            System.arraycopy(patch, 0, result, (int) offset, patch.length);
            storeNow(ks, key, result, meta == null ? 0 : meta.expireAt());
            c.reply().integer(result.length);
        }
    }

    private static void incrBy(CommandCall c, long delta) {
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.STRING);
            long current = 0;
            if (meta != null) {
                Long parsed = Args.tryParseLong(meta.value());
                if (parsed == null) {
                    throw RedisError.notInteger();
                }
                current = parsed;
            }
            long result;
            try {
                result = Math.addExact(current, delta);
            } catch (ArithmeticException e) {
                throw new RedisError(RedisError.OVERFLOW);
            }
            storeNow(ks, key, Args.bytes(result), meta == null ? 0 : meta.expireAt());
            c.reply().integer(result);
        }
    }

    private static void incrByFloat(CommandCall c) {
        double delta = Args.parseDouble(c.arg(2));
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.STRING);
            double current = meta == null ? 0 : Args.parseDouble(meta.value());
            double result = current + delta;
            if (Double.isNaN(result) || Double.isInfinite(result)) {
                throw new RedisError("ERR increment would produce NaN or Infinity");
            }
            byte[] text = Reply.formatDouble(result).getBytes(StandardCharsets.US_ASCII);
            storeNow(ks, key, text, meta == null ? 0 : meta.expireAt());
            c.reply().bulk(text);
        }
    }
}
