package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.RedisLists;

import java.util.Arrays;
import java.util.List;

/**
 * List pushes, pops, reads and moves: argument parsing and replies over {@link RedisLists}, which owns the
 * storage rules (and wakes blocked clients after writes that can fill a key).
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
        b.add("llen", 2, "readonly fast", 1, 1, 1, c -> c.reply().integer(c.types().lists().length(c.arg(1))));
        b.add("lindex", 3, "readonly", 1, 1, 1, ListCommands::lindex);
        b.add("lrange", 4, "readonly", 1, 1, 1, ListCommands::lrange);
        b.add("lmove", 5, "write denyoom", 1, 2, 1, c -> move(c, side(c, 3), side(c, 4)));
        b.add("rpoplpush", 3, "write denyoom", 1, 2, 1, c -> move(c, false, true));
        b.add("lmpop", -4, "write", List.of(KeySpec.counted(1)), c -> lmpop(c));
        ListEditCommands.register(b);
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

    private static void push(CommandCall c, boolean left, boolean onlyIfExists) {
        c.reply().integer(c.types().lists().push(c.arg(1), left, onlyIfExists,
                Arrays.asList(c.args()).subList(2, c.argCount())));
    }

    private static void pop(CommandCall c, boolean left) {
        if (c.argCount() > 3) {
            throw RedisError.wrongArity(c.spec().name());
        }
        boolean hasCount = c.argCount() == 3;
        long count = hasCount ? positive(c.arg(2)) : 1;
        List<byte[]> popped = c.types().lists().pop(c.arg(1), left, count);
        if (popped == null) {
            if (hasCount) {
                c.reply().nullArray();
            } else {
                c.reply().nil();
            }
        } else if (hasCount) {
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
        c.reply().bulk(c.types().lists().get(c.arg(1), () -> c.argLong(2)));
    }

    private static void lrange(CommandCall c) {
        List<byte[]> out = c.types().lists().range(c.arg(1), c.argLong(2), c.argLong(3));
        c.reply().arrayHeader(out.size());
        out.forEach(c.reply()::bulk);
    }

    /** Redis's start/stop rule for LRANGE and LTRIM (see {@link RedisLists#clampRange}). */
    static long[] clampRange(long start, long stop, long size) {
        return RedisLists.clampRange(start, stop, size);
    }

    /** LMOVE / RPOPLPUSH: one element from one end of the source to one end of the destination. */
    private static void move(CommandCall c, boolean fromLeft, boolean toLeft) {
        c.reply().bulk(c.types().lists().move(c.arg(1), c.arg(2), fromLeft, toLeft));
    }

    /** {@link RedisLists#moveLocked}, for the blocking moves. */
    static byte[] moveLocked(RedisLists lists, byte[] source, byte[] destination, boolean fromLeft, boolean toLeft,
                             boolean sourceMustBeList) {
        return lists.moveLocked(source, destination, fromLeft, toLeft, sourceMustBeList);
    }

    /** LMPOP numkeys key... LEFT|RIGHT [COUNT n]. */
    private static void lmpop(CommandCall c) {
        MultiPop request = MultiPop.parse(c, 1);
        MultiPop.Result result = request.popFirstNonEmpty(c.types().lists(), true);
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
        Result popFirstNonEmpty(RedisLists lists, boolean failOnWrongType) {
            return result(lists.popFirst(keys, left, count, failOnWrongType));
        }

        /** Pops from {@code key} if it is a non-empty list; caller holds its lock. */
        Result popLocked(RedisLists lists, byte[] key, boolean failOnWrongType) {
            return result(lists.popLocked(key, left, count, failOnWrongType));
        }

        private static Result result(RedisLists.Popped popped) {
            return popped == null ? null : new Result(popped.key(), popped.elements());
        }
    }
}
