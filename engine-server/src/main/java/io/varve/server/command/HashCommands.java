package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.HashStore;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Hash commands over {@link HashStore}: metadata (version, field count) plus one subkey per field. Writers
 * hold the key's lock and commit fields and metadata in one batch, so the count always matches the fields;
 * whole-hash reads run at a snapshot so they see one consistent version of both.
 */
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
        b.add("hlen", 2, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.HASH);
            c.reply().integer(meta == null ? 0 : meta.size());
        });
        b.add("hexists", 3, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.HASH);
            c.reply().integer(meta != null && c.server().hashes().get(c.arg(1), meta, c.arg(2)) != null ? 1 : 0);
        });
        b.add("hstrlen", 3, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.HASH);
            byte[] v = meta == null ? null : c.server().hashes().get(c.arg(1), meta, c.arg(2));
            c.reply().integer(v == null ? 0 : v.length);
        });
        b.add("hgetall", 2, "readonly", 1, 1, 1, c -> readAll(c, true, true));
        b.add("hkeys", 2, "readonly", 1, 1, 1, c -> readAll(c, true, false));
        b.add("hvals", 2, "readonly", 1, 1, 1, c -> readAll(c, false, true));
        b.add("hincrby", 4, "write denyoom fast", 1, 1, 1, HashCommands::hincrBy);
        b.add("hincrbyfloat", 4, "write denyoom fast", 1, 1, 1, HashCommands::hincrByFloat);
        b.add("hscan", -3, "readonly", 1, 1, 1, HashCommands::hscan);
    }

    /** HSET/HMSET/HSETNX; returns how many fields were added (not updated). */
    private static long hset(CommandCall c, boolean onlyIfAbsent) {
        if (c.argCount() % 2 != 0) {
            throw RedisError.wrongArity(c.spec().name());
        }
        Keyspace ks = c.keyspace();
        HashStore hashes = c.server().hashes();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.HASH);
            if (meta == null) {
                meta = hashes.create();
            }
            WriteBatch batch = new WriteBatch();
            Set<ByteBuffer> addedHere = new HashSet<>();
            long added = 0;
            for (int i = 2; i < c.argCount(); i += 2) {
                byte[] field = c.arg(i);
                boolean exists = addedHere.contains(ByteBuffer.wrap(field)) || hashes.get(key, meta, field) != null;
                if (exists && onlyIfAbsent) {
                    return 0;
                }
                if (!exists) {
                    added++;
                    addedHere.add(ByteBuffer.wrap(field));
                }
                hashes.put(batch, key, meta, field, c.arg(i + 1));
            }
            ks.putMetadata(batch, key, meta.withSize(meta.size() + added));
            ks.commit(batch);
            return added;
        }
    }

    private static void hget(CommandCall c) {
        Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.HASH);
        c.reply().bulk(meta == null ? null : c.server().hashes().get(c.arg(1), meta, c.arg(2)));
    }

    private static void hmget(CommandCall c) {
        Keyspace ks = c.keyspace();
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.HASH);
            c.reply().arrayHeader(c.argCount() - 2);
            for (int i = 2; i < c.argCount(); i++) {
                c.reply().bulk(meta == null ? null : c.server().hashes().get(at, c.arg(1), meta, c.arg(i)));
            }
        }
    }

    private static void hdel(CommandCall c) {
        Keyspace ks = c.keyspace();
        HashStore hashes = c.server().hashes();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.HASH);
            if (meta == null) {
                c.reply().integer(0);
                return;
            }
            WriteBatch batch = new WriteBatch();
            Set<ByteBuffer> removedHere = new HashSet<>();
            long removed = 0;
            for (int i = 2; i < c.argCount(); i++) {
                byte[] field = c.arg(i);
                if (!removedHere.contains(ByteBuffer.wrap(field)) && hashes.get(key, meta, field) != null) {
                    hashes.delete(batch, key, meta, field);
                    removedHere.add(ByteBuffer.wrap(field));
                    removed++;
                }
            }
            if (removed > 0) {
                long left = meta.size() - removed;
                if (left <= 0) {
                    ks.deleteMetadata(batch, key);
                } else {
                    ks.putMetadata(batch, key, meta.withSize(left));
                }
                ks.commit(batch);
            }
            c.reply().integer(removed);
        }
    }

    private static void readAll(CommandCall c, boolean fields, boolean values) {
        Keyspace ks = c.keyspace();
        List<byte[]> out = new ArrayList<>();
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.HASH);
            if (meta != null) {
                c.server().hashes().forEach(at, c.arg(1), meta, null, (f, v) -> {
                    if (fields) {
                        out.add(f);
                    }
                    if (values) {
                        out.add(v);
                    }
                    return true;
                });
            }
        }
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

    /** Read-modify-write of one field under the key's lock; returns the new value parsed as a long if it is one. */
    private static long updateField(CommandCall c, java.util.function.UnaryOperator<byte[]> change) {
        Keyspace ks = c.keyspace();
        HashStore hashes = c.server().hashes();
        byte[] key = c.arg(1);
        byte[] field = c.arg(2);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.HASH);
            if (meta == null) {
                meta = hashes.create();
            }
            byte[] current = hashes.get(key, meta, field);
            byte[] updated = change.apply(current);
            WriteBatch batch = new WriteBatch();
            hashes.put(batch, key, meta, field, updated);
            if (current == null || meta.size() == 0) {
                ks.putMetadata(batch, key, meta.withSize(meta.size() + (current == null ? 1 : 0)));
            }
            ks.commit(batch);
            Long asLong = Args.tryParseLong(updated);
            return asLong == null ? 0 : asLong;
        }
    }

    private static void hscan(CommandCall c) {
        long cursor = KeyCommands.parseCursor(c.arg(2));
        CollectionScan options = CollectionScan.parse(c, true);
        Glob glob = options.glob();
        long count = options.count();
        boolean noValues = options.noValues();
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        byte[] owner = CollectionScan.cursorOwner('h', key);
        byte[] resume = c.server().scanCursors().resume(owner, cursor);
        List<byte[]> out = new ArrayList<>();
        byte[][] last = new byte[1][];
        long[] examined = {0};
        boolean exhausted;
        final Glob pattern = glob;
        final boolean withValues = !noValues;
        final long limit = count;
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, key, RedisType.HASH);
            if (meta == null) {
                exhausted = true;
            } else {
                boolean[] more = {false};
                c.server().hashes().forEach(at, key, meta, resume, (f, v) -> {
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
                exhausted = !more[0];
            }
        }
        long next = exhausted ? 0 : c.server().scanCursors().save(owner, last[0]);
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Long.toString(next));
        r.arrayHeader(out.size());
        out.forEach(r::bulk);
    }
}
