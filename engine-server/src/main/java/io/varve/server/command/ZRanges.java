package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.types.LexRange;
import io.varve.server.types.ScoreRange;

import java.util.Arrays;

/** Score and lexicographic range arguments of the sorted-set commands, parsed with Redis's rules and errors. */
final class ZRanges {

    /** A bound of a lexicographic range; "+" as a lower bound lies above every member (an empty range). */
    private record Bound(byte[] value, boolean exclusive) {
    }

    private static final Bound EMPTY_ABOVE_ALL = new Bound(null, true);

    private ZRanges() {
    }

    /** {@code [min, max]} with either end exclusive ("(1.5"); "-inf"/"+inf" allowed. */
    static ScoreRange scores(byte[] min, byte[] max) {
        boolean minEx = min.length > 0 && min[0] == '(';
        boolean maxEx = max.length > 0 && max[0] == '(';
        try {
            return new ScoreRange(Args.parseDouble(minEx ? Arrays.copyOfRange(min, 1, min.length) : min), minEx,
                    Args.parseDouble(maxEx ? Arrays.copyOfRange(max, 1, max.length) : max), maxEx);
        } catch (RedisError notFloat) {
            throw new RedisError("ERR min or max is not a float");
        }
    }

    /**
     * A range of members by byte order: {@code "-"} and {@code "+"} are the open ends, {@code "[m"} includes
     * m, {@code "(m"} excludes it.
     */
    static LexRange members(byte[] min, byte[] max) {
        Bound lo = bound(min, true);
        Bound hi = bound(max, false);
        return new LexRange(lo.value, lo.exclusive, hi.value, hi.exclusive);
    }

    private static Bound bound(byte[] arg, boolean lower) {
        if (arg.length == 1 && arg[0] == '-') {
            return lower ? new Bound(null, false) : new Bound(new byte[0], true); // nothing is below "-"
        }
        if (arg.length == 1 && arg[0] == '+') {
            return lower ? EMPTY_ABOVE_ALL : new Bound(null, false);
        }
        if (arg.length > 0 && (arg[0] == '(' || arg[0] == '[')) {
            return new Bound(Arrays.copyOfRange(arg, 1, arg.length), arg[0] == '(');
        }
        throw new RedisError("ERR min or max not valid string range item");
    }
}
