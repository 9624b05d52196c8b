package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.server.store.ListStore;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * List pushes, pops, reads and moves over {@link ListStore}. Writers hold the key's lock (both keys' for
 * LMOVE) and commit elements and metadata in one batch; a list that runs empty is deleted. Every write that
 * can fill a key signals the keyspace's blocked clients after its locks are released.
 */
final class ListCommands {

    private ListCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("lpush", -3, "write denyoom fast", 1, 1, 1, c -> push(c, true, false));
        b.add("rpush", -3, "write denyoom fast", 1, 1, 1, c -> push(c, false, false));
        b.add("lpushx", -3, "write denyoom fast", 1, 1, 1, c -> push(c, true, true));
        b.add("rpushx", -3, "write denyoom fast", 1, 1, 1, c -> push(c, false, true));
        b.add("lpop", -2, "write fast", 1, 1, 1, c -> pop(c, true));
        b.add("rpop", -2, "write fast", 1, 1, 1, c -> pop(c, false));
        b.add("llen", 2, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.LIST);
            c.reply().integer(meta == null ? 0 : meta.size());
        });
        b.add("lindex", 3, "readonly", 1, 1, 1, ListCommands::lindex);
        b.add("lrange", 4, "readonly", 1, 1, 1, ListCommands::lrange);
        b.add("lmove", 5, "write denyoom", 1, 2, 1, c -> move(c, side(c, 3), side(c, 4)));
        b.add("rpoplpush", 3, "write denyoom", 1, 2, 1, c -> move(c, false, true));
        b.add("lmpop", -4, "write", List.of(KeySpec.counted(1)), c -> lmpop(c));
        ListEditCommands.register(b);
    }

    static ListStore lists(CommandCall c) {
        return new ListStore(c.keyspace());
    }

    /** LEFT or RIGHT, as true for left; a syntax error otherwise. */
    static boolean side(CommandCall c, int i) {
        if (c.argIs(i, "left")) {
            return true;
        }
        if (c.argIs(i, "right")) {
            return false;
        }
        throw RedisError.syntax();
    }

    /** Puts the list's new metadata, or deletes the key when the list ran empty. */
    static void store(Keyspace ks, WriteBatch batch, byte[] key, Metadata meta) {
        if (meta.size() == 0) {
            ks.deleteMetadata(batch, key);
        } else {
            ks.putMetadata(batch, key, meta);
        }
    }

    private static void push(CommandCall c, boolean left, boolean onlyIfExists) {
        Keyspace ks = c.keyspace();
        ListStore lists = lists(c);
        byte[] key = c.arg(1);
        long length;
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.LIST);
            if (meta == null) {
                if (onlyIfExists) {
                    c.reply().integer(0);
                    return;
                }
                meta = lists.create();
            }
            WriteBatch batch = new WriteBatch();
            meta = lists.push(batch, key, meta, left, Arrays.asList(c.args()).subList(2, c.argCount()));
            ks.putMetadata(batch, key, meta);
            ks.commit(batch);
            length = meta.size();
        }
        ks.blocking().signal(key);
        c.reply().integer(length);
    }

    private static void pop(CommandCall c, boolean left) {
        if (c.argCount() > 3) {
            throw RedisError.syntax();
        }
        boolean hasCount = c.argCount() == 3;
        long count = hasCount ? positive(c.arg(2)) : 1;
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        List<byte[]> popped = new ArrayList<>();
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.LIST);
            if (meta == null) {
                if (hasCount) {
                    c.reply().nullArray();
                } else {
                    c.reply().nil();
                }
                return;
            }
            if (count > 0) {
                WriteBatch batch = new WriteBatch();
                store(ks, batch, key, lists(c).pop(ReadOptions.DEFAULT, batch, key, meta, left, count, popped));
                ks.commit(batch);
            }
        }
        if (hasCount) {
            c.reply().arrayHeader(popped.size());
            popped.forEach(c.reply()::bulk);
        } else {
            c.reply().bulk(popped.getFirst());
        }
    }

    /**
     * A count argument that must be 0 or more (LPOP, SPOP): Redis's "must be positive" error otherwise, also
     * for text that is no integer at all.
     */
    static long positive(byte[] arg) {
        Long n = Args.tryParseLong(arg);
        if (n == null || n < 0) {
            throw new RedisError("ERR value is out of range, must be positive");
        }
        return n;
    }

    private static void lindex(CommandCall c) {
        Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.LIST);
        if (meta == null) {
            c.reply().nil(); // before the index is parsed, as in Redis
            return;
        }
        long index = c.argLong(2);
        if (index < 0) {
            index += meta.size();
        }
        c.reply().bulk(lists(c).get(ReadOptions.DEFAULT, c.arg(1), meta, index));
    }

    private static void lrange(CommandCall c) {
        long start = c.argLong(2);
        long stop = c.argLong(3);
        Keyspace ks = c.keyspace();
        List<byte[]> out = List.of();
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.LIST);
            if (meta != null) {
                long[] range = clampRange(start, stop, meta.size());
                out = lists(c).range(at, c.arg(1), meta, range[0], range[1]);
            }
        }
        c.reply().arrayHeader(out.size());
        out.forEach(c.reply()::bulk);
    }

    /**
     * Redis's start/stop rule for LRANGE and LTRIM: negatives count from the end, then both are clamped to the
     * list; returns {from, to} inclusive, with from > to when the range is empty.
     */
    static long[] clampRange(long start, long stop, long size) {
        if (start < 0) {
            start = Math.max(0, size + start);
        }
        if (stop < 0) {
            stop = size + stop;
        }
        if (stop >= size) {
            stop = size - 1;
        }
        if (start > stop || start >= size) {
            return new long[] {0, -1};
        }
        return new long[] {start, stop};
    }

    /** LMOVE / RPOPLPUSH: one element from one end of the source to one end of the destination. */
    private static void move(CommandCall c, boolean fromLeft, boolean toLeft) {
        byte[] moved = moveOne(c.keyspace(), c.arg(1), c.arg(2), fromLeft, toLeft);
        c.reply().bulk(moved);
    }

    /**
     * Moves one element under both keys' locks and signals the destination's waiters; returns it, or null when
     * the source is empty. WRONGTYPE when either key holds another type (the destination is checked only when
     * there is something to move, as in Redis).
     */
    static byte[] moveOne(Keyspace ks, byte[] source, byte[] destination, boolean fromLeft, boolean toLeft) {
        byte[] element = moveLocked(ks, source, destination, fromLeft, toLeft, true);
        if (element != null) {
            ks.blocking().signal(destination);
        }
        return element;
    }

    /**
     * The move itself. With {@code sourceMustBeList} false a source of another type reads as "nothing to move"
     * (a blocked BLMOVE keeps waiting, as Redis does not serve it from such a key); a destination of another
     * type is always WRONGTYPE, which ends a blocked BLMOVE with that error as in Redis.
     */
    static byte[] moveLocked(Keyspace ks, byte[] source, byte[] destination, boolean fromLeft, boolean toLeft,
                             boolean sourceMustBeList) {
        ListStore lists = new ListStore(ks);
        try (LockStripes.Held held = ks.lockAll(source, destination)) {
            Metadata src = ks.lookup(source);
            if (src == null || (src.type() != RedisType.LIST && !sourceMustBeList)) {
                return null;
            }
            if (src.type() != RedisType.LIST) {
                throw RedisError.wrongType();
            }
            Metadata dst = ks.lookup(destination);
            if (dst != null && dst.type() != RedisType.LIST) {
                throw RedisError.wrongType();
            }
            WriteBatch batch = new WriteBatch();
            List<byte[]> popped = new ArrayList<>(1);
            Metadata srcAfter = lists.pop(ReadOptions.DEFAULT, batch, source, src, fromLeft, 1, popped);
            byte[] element = popped.getFirst();
            if (Arrays.equals(source, destination)) {
                srcAfter = lists.push(batch, destination, srcAfter, toLeft, List.of(element));
            } else {
                Metadata dstAfter = lists.push(batch, destination, dst == null ? lists.create() : dst, toLeft,
                        List.of(element));
                ks.putMetadata(batch, destination, dstAfter);
            }
            store(ks, batch, source, srcAfter);
            ks.commit(batch);
            return element;
        }
    }

    /** LMPOP numkeys key... LEFT|RIGHT [COUNT n]. */
    private static void lmpop(CommandCall c) {
        MultiPop request = MultiPop.parse(c, 1);
        MultiPop.Result result = request.popFirstNonEmpty(c.keyspace(), true);
        if (result == null) {
            c.reply().nullArray();
        } else {
            result.write(c.reply());
        }
    }

    /** The parsed arguments of LMPOP/BLMPOP from the numkeys argument on. */
    record MultiPop(List<byte[]> keys, boolean left, long count) {

        record Result(byte[] key, List<byte[]> elements) {
            void write(Reply r) {
                r.arrayHeader(2);
                r.bulk(key);
                r.arrayHeader(elements.size());
                elements.forEach(r::bulk);
            }
        }

        static MultiPop parse(CommandCall c, int numKeysIndex) {
            Long numKeys = Args.tryParseLong(c.arg(numKeysIndex));
            if (numKeys == null || numKeys <= 0) {
                throw new RedisError("ERR numkeys should be greater than 0");
            }
            long whereIndex = numKeysIndex + Math.min(numKeys, c.argCount()) + 1;
            if (whereIndex >= c.argCount()) {
                throw RedisError.syntax();
            }
            boolean left = side(c, (int) whereIndex);
            long count = 1;
            for (int i = (int) whereIndex + 1; i < c.argCount(); i++) {
                if (c.argIs(i, "count") && i + 1 < c.argCount()) {
                    Long n = Args.tryParseLong(c.arg(++i));
                    if (n == null || n <= 0) {
                        throw new RedisError("ERR count should be greater than 0");
                    }
                    count = n;
                } else {
                    throw RedisError.syntax();
                }
            }
            List<byte[]> keys = Arrays.asList(c.args()).subList(numKeysIndex + 1, (int) whereIndex);
            return new MultiPop(keys, left, count);
        }

        /** Pops from the first non-empty list among the keys, under all their locks; null when all are empty. */
        Result popFirstNonEmpty(Keyspace ks, boolean failOnWrongType) {
            try (LockStripes.Held held = ks.lockAll(keys.toArray(new byte[0][]))) {
                for (byte[] key : keys) {
                    Result r = popLocked(ks, key, failOnWrongType);
                    if (r != null) {
                        return r;
                    }
                }
                return null;
            }
        }

        /** Pops from {@code key} if it is a non-empty list; caller holds its lock. */
        Result popLocked(Keyspace ks, byte[] key, boolean failOnWrongType) {
            Metadata meta = ks.lookup(key);
            if (meta == null) {
                return null;
            }
            if (meta.type() != RedisType.LIST) {
                if (failOnWrongType) {
                    throw RedisError.wrongType();
                }
                return null;
            }
            WriteBatch batch = new WriteBatch();
            List<byte[]> popped = new ArrayList<>();
            store(ks, batch, key, new ListStore(ks).pop(ReadOptions.DEFAULT, batch, key, meta, left, count, popped));
            ks.commit(batch);
            return new Result(key, popped);
        }
    }
}
