package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.types.SetOperation;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD, over {@link io.varve.server.types.RedisSets#combine}
 * (a missing key is an empty set; any other type is WRONGTYPE) and its STORE form.
 */
final class SetAlgebraCommands {

    private SetAlgebraCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("sinter", -2, "readonly", 1, -1, 1, c -> reply(c, c.types().sets().combine(keys(c, 1), SetOperation.INTERSECTION)));
        b.add("sunion", -2, "readonly", 1, -1, 1, c -> reply(c, c.types().sets().combine(keys(c, 1), SetOperation.UNION)));
        b.add("sdiff", -2, "readonly", 1, -1, 1, c -> reply(c, c.types().sets().combine(keys(c, 1), SetOperation.DIFFERENCE)));
        b.add("sinterstore", -3, "write denyoom", 1, -1, 1, c -> store(c, SetOperation.INTERSECTION));
        b.add("sunionstore", -3, "write denyoom", 1, -1, 1, c -> store(c, SetOperation.UNION));
        b.add("sdiffstore", -3, "write denyoom", 1, -1, 1, c -> store(c, SetOperation.DIFFERENCE));
        b.add("sintercard", -3, "readonly", 0, 0, 0, SetAlgebraCommands::sintercard);
    }

    private static List<byte[]> keys(CommandCall c, int from) {
        return Arrays.asList(c.args()).subList(from, c.argCount());
    }

    private static void reply(CommandCall c, Set<ByteBuffer> result) {
        c.reply().setHeader(result.size());
        for (ByteBuffer m : result) {
            c.reply().bulk(m.array());
        }
    }

    private static void store(CommandCall c, SetOperation operation) {
        c.reply().integer(c.types().sets().combineInto(c.arg(1), keys(c, 2), operation));
    }

    /** SINTERCARD numkeys key... [LIMIT limit]. */
    private static void sintercard(CommandCall c) {
        Long numKeys = Args.tryParseLong(c.arg(1));
        if (numKeys == null || numKeys <= 0) {
            throw new RedisError("ERR numkeys should be greater than 0");
        }
        if (numKeys > c.argCount() - 2) {
            throw new RedisError("ERR Number of keys can't be greater than number of args");
        }
        int end = (int) (2 + numKeys);
        long limit = 0;
        for (int i = end; i < c.argCount(); i++) {
            if (c.argIs(i, "limit") && i + 1 < c.argCount()) {
                Long v = Args.tryParseLong(c.arg(++i));
                if (v == null || v < 0) {
                    throw new RedisError("ERR LIMIT can't be negative");
                }
                limit = v;
            } else {
                throw RedisError.syntax();
            }
        }
        long size = c.types().sets().combine(Arrays.asList(c.args()).subList(2, end), SetOperation.INTERSECTION).size();
        c.reply().integer(limit == 0 ? size : Math.min(size, limit));
    }
}
