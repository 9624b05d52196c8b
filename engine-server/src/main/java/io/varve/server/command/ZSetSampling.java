package io.varve.server.command;

import io.varve.server.resp.DoubleFormat;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.Scored;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * ZRANDMEMBER and ZSCAN: the sorted-set reads that walk members rather than a range. ZRANDMEMBER reads the
 * set at a snapshot and picks from it (the layout has no random access); ZSCAN resumes after the last
 * member it returned, in member byte order, like HSCAN.
 */
final class ZSetSampling {

    /** Most members one ZRANDMEMBER with a negative count returns. */
    static final long MAX_REPEATED_PICKS = 1L << 24;

    private ZSetSampling() {
    }

    static void register(CommandTable.Builder b) {
        b.add("zrandmember", -2, "readonly", 1, 1, 1, ZSetSampling::randomMember);
        b.add("zscan", -3, "readonly", 1, 1, 1, ZSetSampling::zscan);
    }

    private static void randomMember(CommandCall c) {
        boolean withScores = false;
        long count = 1;
        boolean counted = c.argCount() >= 3;
        if (c.argCount() > 4 || (c.argCount() == 4 && !c.argIs(3, "withscores"))) {
            throw RedisError.syntax();
        }
        if (counted) {
            count = c.argLong(2);
            withScores = c.argCount() == 4;
            if (count == Long.MIN_VALUE) {
                throw new RedisError("ERR value is out of range, value must between -9223372036854775807 and "
                        + "9223372036854775807");
            }
            if (withScores && count < -Long.MAX_VALUE / 2) {
                throw new RedisError("ERR value is out of range");
            }
            if (count < -MAX_REPEATED_PICKS) {
                // Redis builds any size; here one request must not exhaust the heap.
                throw new RedisError("ERR value is out of range, value must between -" + MAX_REPEATED_PICKS
                        + " and 9223372036854775807");
            }
        }
        List<Scored> all = new ArrayList<>();
        if (count != 0) {
            all.addAll(c.types().sortedSets().all(c.arg(1)));
        } else {
            c.types().sortedSets().size(c.arg(1)); // WRONGTYPE for another type, as Redis checks first
        }
        Reply r = c.reply();
        if (!counted) {
            r.bulk(all.isEmpty() ? null : all.get(ThreadLocalRandom.current().nextInt(all.size())).member());
            return;
        }
        List<Scored> picked;
        if (all.isEmpty()) {
            picked = List.of();
        } else if (count < 0) {
            // With repetition: each pick independent, |count| of them.
            long n = -count;
            picked = new ArrayList<>((int) Math.min(n, 1 << 16));
            for (long i = 0; i < n; i++) {
                picked.add(all.get(ThreadLocalRandom.current().nextInt(all.size())));
            }
        } else {
            Collections.shuffle(all, ThreadLocalRandom.current());
            picked = all.subList(0, (int) Math.min(count, all.size()));
        }
        ScoredReplies.reply(r, picked, withScores);
    }

    private static void zscan(CommandCall c) {
        long cursor = KeyCommands.parseCursor(c.arg(2));
        CollectionScan options = CollectionScan.parse(c, false);
        Glob glob = options.glob();
        long count = options.count();
        byte[] key = c.arg(1);
        byte[] owner = CollectionScan.cursorOwner('z', key);
        byte[] resume = c.server().scanCursors().resume(owner, cursor);
        List<Scored> out = new ArrayList<>();
        byte[][] last = new byte[1][];
        boolean[] more = {false};
        Glob pattern = glob;
        long limit = count;
        long[] examined = {0};
        c.types().sortedSets().forEachByMember(key, resume, (member, score) -> {
            if (examined[0] == limit) {
                more[0] = true;
                return false;
            }
            examined[0]++;
            last[0] = member;
            if (pattern == null || pattern.matches(member)) {
                out.add(new Scored(member, score));
            }
            return true;
        });
        long next = more[0] ? c.server().scanCursors().save(owner, last[0]) : 0;
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Long.toString(next));
        r.arrayHeader(out.size() * 2L);
        for (Scored s : out) {
            r.bulk(s.member());
            r.bulk(DoubleFormat.format(s.score()));
        }
    }
}
