package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.RedisSets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Set commands on one key: argument parsing and replies over {@link RedisSets}, which owns the storage
 * rules; the multi-key algebra is in {@link SetAlgebraCommands}.
 */
final class SetCommands {

    /** Most members SRANDMEMBER with a negative count may return (each may repeat, so the set does not bound it). */
    static final long MAX_REPEATED_MEMBERS = 1L << 24;

    private SetCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("sadd", -3, "write denyoom fast", 1, 1, 1,
                c -> c.reply().integer(c.types().sets().add(c.arg(1), argsFrom(c, 2))));
        b.add("srem", -3, "write fast", 1, 1, 1,
                c -> c.reply().integer(c.types().sets().remove(c.arg(1), argsFrom(c, 2))));
        b.add("smembers", 2, "readonly", 1, 1, 1, c -> {
            List<byte[]> members = c.types().sets().members(c.arg(1));
            c.reply().setHeader(members.size());
            members.forEach(c.reply()::bulk);
        });
        b.add("sismember", 3, "readonly fast", 1, 1, 1,
                c -> c.reply().integer(c.types().sets().contains(c.arg(1), c.arg(2)) ? 1 : 0));
        b.add("smismember", -3, "readonly fast", 1, 1, 1, SetCommands::smismember);
        b.add("scard", 2, "readonly fast", 1, 1, 1, c -> c.reply().integer(c.types().sets().size(c.arg(1))));
        b.add("spop", -2, "write random fast", 1, 1, 1, SetCommands::spop);
        b.add("srandmember", -2, "readonly random", 1, 1, 1, SetCommands::srandmember);
        b.add("smove", 4, "write fast", 1, 2, 1,
                c -> c.reply().integer(c.types().sets().move(c.arg(1), c.arg(2), c.arg(3)) ? 1 : 0));
        b.add("sscan", -3, "readonly random", 1, 1, 1, SetCommands::sscan);
        SetAlgebraCommands.register(b);
    }

    private static List<byte[]> argsFrom(CommandCall c, int first) {
        return Arrays.asList(c.args()).subList(first, c.argCount());
    }

    private static void smismember(CommandCall c) {
        boolean[] found = c.types().sets().containsEach(c.arg(1), argsFrom(c, 2));
        c.reply().arrayHeader(found.length);
        for (boolean f : found) {
            c.reply().integer(f ? 1 : 0);
        }
    }

    private static void spop(CommandCall c) {
        if (c.argCount() > 3) {
            throw RedisError.syntax();
        }
        boolean hasCount = c.argCount() == 3;
        long count = hasCount ? ListCommands.positive(c.arg(2)) : 1;
        List<byte[]> popped = c.types().sets().pop(c.arg(1), count);
        Reply r = c.reply();
        if (!hasCount) {
            r.bulk(popped.isEmpty() ? null : popped.getFirst());
            return;
        }
        r.setHeader(popped.size());
        popped.forEach(r::bulk);
    }

    private static void srandmember(CommandCall c) {
        if (c.argCount() > 3) {
            throw RedisError.syntax();
        }
        boolean hasCount = c.argCount() == 3;
        long count = hasCount ? c.argLong(2) : 1;
        if (count == Long.MIN_VALUE) {
            throw new RedisError("ERR value is out of range, value must between -9223372036854775807 and "
                    + "9223372036854775807");
        }
        if (count < -MAX_REPEATED_MEMBERS) {
            // Redis would build the reply however large; here one request must not exhaust the heap.
            throw new RedisError("ERR value is out of range, value must between -" + MAX_REPEATED_MEMBERS
                    + " and 9223372036854775807");
        }
        Reply r = c.reply();
        if (!hasCount) {
            r.bulk(c.types().sets().randomMember(c.arg(1)));
            return;
        }
        List<byte[]> out = c.types().sets().randomMembers(c.arg(1), count);
        r.arrayHeader(out.size());
        out.forEach(r::bulk);
    }

    private static void sscan(CommandCall c) {
        long cursor = KeyCommands.parseCursor(c.arg(2));
        CollectionScan options = CollectionScan.parse(c, false);
        Glob glob = options.glob();
        long count = options.count();
        byte[] key = c.arg(1);
        byte[] owner = CollectionScan.cursorOwner('S', key);
        byte[] resume = c.server().scanCursors().resume(owner, cursor);
        List<byte[]> out = new ArrayList<>();
        byte[][] last = new byte[1][];
        long[] examined = {0};
        boolean[] more = {false};
        Glob pattern = glob;
        long limit = count;
        c.types().sets().forEach(key, resume, m -> {
            if (examined[0] == limit) {
                more[0] = true;
                return false;
            }
            examined[0]++;
            last[0] = m;
            if (pattern == null || pattern.matches(m)) {
                out.add(m);
            }
            return true;
        });
        long next = more[0] ? c.server().scanCursors().save(owner, last[0]) : 0;
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Long.toString(next));
        r.arrayHeader(out.size());
        out.forEach(r::bulk);
    }
}
