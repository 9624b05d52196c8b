package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.ZSetEdit;
import io.varve.server.store.ZSetStore;

import java.util.List;

/**
 * The sorted-set range commands: ZRANGE with BYSCORE/BYLEX/REV/LIMIT/WITHSCORES and its older spellings,
 * ZRANGESTORE, ZCOUNT, ZLEXCOUNT and the ZREMRANGEBY* family. Each range is one bounded scan
 * ({@link ZRangeQuery}). Lexicographic ranges walk the members in byte order; Redis defines them only for
 * members of equal score, where that is the same order.
 */
final class ZRangeCommands {

    private enum By { RANK, SCORE, LEX }

    /** A parsed range request. */
    private record Request(By by, boolean reverse, byte[] min, byte[] max, boolean withScores, long offset,
                           long count) {
    }

    private ZRangeCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("zrange", -4, "readonly", 1, 1, 1, c -> range(c, 1, null, false));
        b.add("zrevrange", -4, "readonly", 1, 1, 1, c -> range(c, 1, By.RANK, true));
        b.add("zrangebyscore", -4, "readonly", 1, 1, 1, c -> range(c, 1, By.SCORE, false));
        b.add("zrevrangebyscore", -4, "readonly", 1, 1, 1, c -> range(c, 1, By.SCORE, true));
        b.add("zrangebylex", -4, "readonly", 1, 1, 1, c -> range(c, 1, By.LEX, false));
        b.add("zrevrangebylex", -4, "readonly", 1, 1, 1, c -> range(c, 1, By.LEX, true));
        b.add("zrangestore", -5, "write denyoom", 1, 2, 1, ZRangeCommands::rangeStore);
        b.add("zcount", 4, "readonly fast", 1, 1, 1, c -> count(c, By.SCORE));
        b.add("zlexcount", 4, "readonly fast", 1, 1, 1, c -> count(c, By.LEX));
        b.add("zremrangebyrank", 4, "write", 1, 1, 1, c -> removeRange(c, By.RANK));
        b.add("zremrangebyscore", 4, "write", 1, 1, 1, c -> removeRange(c, By.SCORE));
        b.add("zremrangebylex", 4, "write", 1, 1, 1, c -> removeRange(c, By.LEX));
    }

    /**
     * Parses the arguments after the key as Redis's zrangeGenericCommand does: {@code fixedBy} and
     * {@code fixedReverse} are the legacy commands' implied options (null/false: ZRANGE, which takes them
     * as words).
     */
    private static Request parse(CommandCall c, int keyIndex, By fixedBy, boolean fixedReverse, boolean store) {
        By by = fixedBy;
        boolean reverse = fixedReverse;
        boolean withScores = false;
        boolean limited = false;
        long offset = 0;
        long count = -1;
        boolean auto = fixedBy == null;
        for (int j = keyIndex + 3; j < c.argCount(); j++) {
            int left = c.argCount() - j - 1;
            if (!store && c.argIs(j, "withscores")) {
                withScores = true;
            } else if (c.argIs(j, "limit") && left >= 2) {
                offset = c.argLong(j + 1);
                count = c.argLong(j + 2);
                limited = true;
                j += 2;
            } else if (auto && c.argIs(j, "rev")) {
                reverse = true;
            } else if (auto && by == null && c.argIs(j, "bylex")) {
                by = By.LEX;
            } else if (auto && by == null && c.argIs(j, "byscore")) {
                by = By.SCORE;
            } else {
                throw RedisError.syntax();
            }
        }
        if (by == null) {
            by = By.RANK;
        }
        if (limited && by == By.RANK) {
            throw new RedisError("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        }
        if (withScores && by == By.LEX) {
            throw new RedisError("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        }
        byte[] min = c.arg(keyIndex + 1);
        byte[] max = c.arg(keyIndex + 2);
        if (reverse && by != By.RANK) {
            byte[] t = min;
            min = max;
            max = t;
        }
        return new Request(by, reverse, min, max, withScores, offset, count);
    }

    /** Checks the range arguments before any key is read, so a bad range errs even on a missing key. */
    private static Object parseRange(Request q) {
        return switch (q.by) {
            case RANK -> new long[] {Args.parseLong(q.min), Args.parseLong(q.max)};
            case SCORE -> ZRanges.ScoreRange.parse(q.min, q.max);
            case LEX -> ZRanges.LexRange.parse(q.min, q.max);
        };
    }

    private static List<Scored> run(ZRangeQuery query, Request q, Object range) {
        return switch (q.by) {
            case RANK -> query.byRank(((long[]) range)[0], ((long[]) range)[1], q.reverse);
            case SCORE -> query.byScore((ZRanges.ScoreRange) range, q.reverse, q.offset, q.count);
            case LEX -> query.byLex((ZRanges.LexRange) range, q.reverse, q.offset, q.count);
        };
    }

    private static void range(CommandCall c, int keyIndex, By fixedBy, boolean fixedReverse) {
        Request q = parse(c, keyIndex, fixedBy, fixedReverse, false);
        Object range = parseRange(q);
        Keyspace ks = c.keyspace();
        List<Scored> items = List.of();
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(keyIndex), RedisType.ZSET);
            if (meta != null) {
                items = run(new ZRangeQuery(ZSetCommands.store(c), at, c.arg(keyIndex), meta), q, range);
            }
        }
        Scored.reply(c.reply(), items, q.withScores);
    }

    private static void rangeStore(CommandCall c) {
        Request q = parse(c, 2, null, false, true);
        Object range = parseRange(q);
        Keyspace ks = c.keyspace();
        byte[] destination = c.arg(1);
        byte[] source = c.arg(2);
        try (LockStripes.Held held = ks.lockAll(destination, source)) {
            Metadata meta = ks.lookup(source, RedisType.ZSET);
            List<Scored> items = meta == null ? List.of()
                    : run(new ZRangeQuery(ZSetCommands.store(c), ReadOptions.DEFAULT, source, meta), q, range);
            storeResult(c, destination, items);
            c.reply().integer(items.size());
        }
        ks.blocking().signal(destination);
    }

    /**
     * Replaces {@code destination} (any type) with a new sorted set of {@code items} (distinct members), or
     * deletes it when there are none. Caller holds the destination's lock.
     */
    static void storeResult(CommandCall c, byte[] destination, List<Scored> items) {
        Keyspace ks = c.keyspace();
        WriteBatch batch = new WriteBatch();
        if (items.isEmpty()) {
            if (ks.header(destination) == null) {
                return;
            }
            ks.deleteMetadata(batch, destination);
        } else {
            ZSetStore store = ZSetCommands.store(c);
            Metadata meta = store.create().withSize(items.size());
            for (Scored s : items) {
                store.put(batch, destination, meta, s.member(), null, s.score());
            }
            ks.putMetadata(batch, destination, meta);
        }
        ks.commit(batch);
    }

    private static void count(CommandCall c, By by) {
        Object range = by == By.SCORE ? ZRanges.ScoreRange.parse(c.arg(2), c.arg(3))
                : ZRanges.LexRange.parse(c.arg(2), c.arg(3));
        Keyspace ks = c.keyspace();
        long n = 0;
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.ZSET);
            if (meta != null) {
                ZRangeQuery query = new ZRangeQuery(ZSetCommands.store(c), at, c.arg(1), meta);
                n = by == By.SCORE ? query.countByScore((ZRanges.ScoreRange) range)
                        : query.countByLex((ZRanges.LexRange) range);
            }
        }
        c.reply().integer(n);
    }

    private static void removeRange(CommandCall c, By by) {
        Request q = new Request(by, false, c.arg(2), c.arg(3), false, 0, -1);
        Object range = parseRange(q);
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.ZSET);
            if (meta == null) {
                c.reply().integer(0);
                return;
            }
            ZSetStore store = ZSetCommands.store(c);
            List<Scored> doomed = run(new ZRangeQuery(store, ReadOptions.DEFAULT, key, meta), q, range);
            ZSetEdit edit = new ZSetEdit(store, key, meta);
            for (Scored s : doomed) {
                edit.removeKnown(s.member(), s.score());
            }
            edit.commit(ks);
            c.reply().integer(doomed.size());
        }
    }
}
