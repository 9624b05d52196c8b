package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.types.RankRange;
import io.varve.server.types.Scored;
import io.varve.server.types.SortedRange;

import java.util.List;

/**
 * The sorted-set range commands: ZRANGE with BYSCORE/BYLEX/REV/LIMIT/WITHSCORES and its older spellings,
 * ZRANGESTORE, ZCOUNT, ZLEXCOUNT and the ZREMRANGEBY* family. Each range is one bounded scan
 * ({@link io.varve.server.types.RedisSortedSets#range}). Lexicographic ranges walk the members in byte order; Redis defines them only for
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
    private static SortedRange parseRange(Request q) {
        return switch (q.by) {
            case RANK -> new RankRange(Args.parseLong(q.min), Args.parseLong(q.max));
            case SCORE -> ZRanges.scores(q.min, q.max);
            case LEX -> ZRanges.members(q.min, q.max);
        };
    }

    private static void range(CommandCall c, int keyIndex, By fixedBy, boolean fixedReverse) {
        Request q = parse(c, keyIndex, fixedBy, fixedReverse, false);
        SortedRange range = parseRange(q);
        List<Scored> items = c.types().sortedSets().range(c.arg(keyIndex), range, q.reverse, q.offset, q.count);
        ScoredReplies.reply(c.reply(), items, q.withScores);
    }

    private static void rangeStore(CommandCall c) {
        Request q = parse(c, 2, null, false, true);
        SortedRange range = parseRange(q);
        c.reply().integer(c.types().sortedSets().rangeInto(c.arg(1), c.arg(2), range, q.reverse, q.offset, q.count));
    }

    private static void count(CommandCall c, By by) {
        SortedRange range = by == By.SCORE ? ZRanges.scores(c.arg(2), c.arg(3)) : ZRanges.members(c.arg(2), c.arg(3));
        c.reply().integer(c.types().sortedSets().count(c.arg(1), range));
    }

    private static void removeRange(CommandCall c, By by) {
        SortedRange range = parseRange(new Request(by, false, c.arg(2), c.arg(3), false, 0, -1));
        c.reply().integer(c.types().sortedSets().removeRange(c.arg(1), range));
    }
}
