package io.varve.server.command;

import io.varve.server.resp.RedisError;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * List commands that look inside the list: LSET, LINSERT, LREM, LTRIM, LPOS, over
 * {@link io.varve.server.types.RedisLists}.
 */
final class ListEditCommands {

    private ListEditCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("lset", 4, "write denyoom", 1, 1, 1, ListEditCommands::lset);
        b.add("linsert", 5, "write denyoom", 1, 1, 1, ListEditCommands::linsert);
        b.add("lrem", 4, "write", 1, 1, 1, ListEditCommands::lrem);
        b.add("ltrim", 4, "write", 1, 1, 1, ListEditCommands::ltrim);
        b.add("lpos", -3, "readonly", 1, 1, 1, ListEditCommands::lpos);
    }

    private static void lset(CommandCall c) {
        c.types().lists().set(c.arg(1), () -> c.argLong(2), c.arg(3));
        c.reply().ok();
    }

    private static void linsert(CommandCall c) {
        boolean before;
        if (c.argIs(2, "before")) {
            before = true;
        } else if (c.argIs(2, "after")) {
            before = false;
        } else {
            throw RedisError.syntax();
        }
        c.reply().integer(c.types().lists().insert(c.arg(1), before, c.arg(3), c.arg(4)));
    }

    private static void lrem(CommandCall c) {
        long count = c.argLong(2);
        c.reply().integer(c.types().lists().removeMatching(c.arg(1), count, c.arg(3)));
    }

    private static void ltrim(CommandCall c) {
        long start = c.argLong(2);
        long stop = c.argLong(3);
        c.types().lists().trim(c.arg(1), start, stop);
        c.reply().ok();
    }

    /** LPOS key element [RANK rank] [COUNT num] [MAXLEN len]. */
    private static void lpos(CommandCall c) {
        long rank = 1;
        long count = -1;
        long maxLen = 0;
        for (int i = 3; i < c.argCount(); i++) {
            boolean more = i + 1 < c.argCount();
            if (more && c.argIs(i, "rank")) {
                rank = c.argLong(++i);
                if (rank == 0) {
                    throw new RedisError("ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                            + "second ... or use negative to start from the end of the list");
                }
                if (rank == Long.MIN_VALUE) {
                    throw new RedisError("ERR value is out of range");
                }
            } else if (more && c.argIs(i, "count")) {
                count = nonNegative(c.arg(++i), "ERR COUNT can't be negative");
            } else if (more && c.argIs(i, "maxlen")) {
                maxLen = nonNegative(c.arg(++i), "ERR MAXLEN can't be negative");
            } else {
                throw RedisError.syntax();
            }
        }
        List<byte[]> elements = c.types().lists().elements(c.arg(1));
        List<Long> matches = new ArrayList<>();
        if (elements != null) {
            int n = elements.size();
            long skip = Math.abs(rank) - 1;
            long wanted = count == 0 ? Long.MAX_VALUE : Math.max(count, 1);
            long limit = maxLen == 0 ? n : Math.min(maxLen, n);
            for (int k = 0; k < limit && matches.size() < wanted; k++) {
                int i = rank < 0 ? n - 1 - k : k;
                if (Arrays.equals(elements.get(i), c.arg(2))) {
                    if (skip > 0) {
                        skip--;
                    } else {
                        matches.add((long) i);
                    }
                }
            }
        }
        if (count < 0) {
            if (matches.isEmpty()) {
                c.reply().nil();
            } else {
                c.reply().integer(matches.getFirst());
            }
            return;
        }
        c.reply().arrayHeader(matches.size());
        matches.forEach(c.reply()::integer);
    }

    private static long nonNegative(byte[] arg, String error) {
        Long v = Args.tryParseLong(arg);
        if (v == null || v < 0) {
            throw new RedisError(error);
        }
        return v;
    }
}
