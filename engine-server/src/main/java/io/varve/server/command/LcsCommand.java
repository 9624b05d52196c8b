package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.WrongTypeException;

import java.util.ArrayList;
import java.util.List;

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the longest common subsequence of two strings,
 * by the classic dynamic-programming table, then a walk back from its corner that yields the subsequence
 * and its matching ranges (last match first, as Redis lists them). The table has (|a|+1)(|b|+1) cells, so
 * its size is checked before it is allocated.
 */
final class LcsCommand {

    /** Most table cells (4 bytes each) one LCS may allocate. */
    static final long MAX_CELLS = 1L << 26;

    private record Match(long aStart, long aEnd, long bStart, long bEnd, long length) {
    }

    private LcsCommand() {
    }

    static void register(CommandTable.Builder b) {
        b.add("lcs", -3, "readonly", 1, 2, 1, LcsCommand::lcs);
    }

    private static void lcs(CommandCall c) {
        boolean len = false;
        boolean idx = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        for (int i = 3; i < c.argCount(); i++) {
            int left = c.argCount() - i - 1;
            if (c.argIs(i, "idx")) {
                idx = true;
            } else if (c.argIs(i, "len")) {
                len = true;
            } else if (c.argIs(i, "withmatchlen")) {
                withMatchLen = true;
            } else if (c.argIs(i, "minmatchlen") && left >= 1) {
                minMatchLen = Math.max(0, c.argLong(++i));
            } else {
                throw RedisError.syntax();
            }
        }
        if (len && idx) {
            throw new RedisError("ERR If you want both the length and indexes, please just use IDX.");
        }
        byte[] a;
        byte[] b;
        List<byte[]> values;
        try {
            values = c.types().strings().getAtOneInstant(List.of(c.arg(1), c.arg(2)));
        } catch (WrongTypeException notStrings) {
            throw new RedisError("ERR The specified keys must contain string values");
        }
        a = values.get(0) == null ? new byte[0] : values.get(0);
        b = values.get(1) == null ? new byte[0] : values.get(1);
        if ((long) (a.length + 1) * (b.length + 1) > MAX_CELLS) {
            throw new RedisError("ERR Insufficient memory, transient memory for LCS exceeds the server's limit");
        }
        int[] table = table(a, b);
        int width = b.length + 1;
        int total = table[a.length * width + b.length];
        Reply r = c.reply();
        if (len) {
            r.integer(total);
            return;
        }
        byte[] common = new byte[total];
        List<Match> matches = new ArrayList<>();
        walkBack(a, b, table, common, matches);
        if (!idx) {
            r.bulk(common);
            return;
        }
        r.mapHeader(2);
        r.bulk("matches");
        long shown = 0;
        for (Match m : matches) {
            shown += m.length >= minMatchLen ? 1 : 0;
        }
        r.arrayHeader(shown);
        for (Match m : matches) {
            if (m.length < minMatchLen) {
                continue;
            }
            r.arrayHeader(withMatchLen ? 3 : 2);
            r.arrayHeader(2);
            r.integer(m.aStart);
            r.integer(m.aEnd);
            r.arrayHeader(2);
            r.integer(m.bStart);
            r.integer(m.bEnd);
            if (withMatchLen) {
                r.integer(m.length);
            }
        }
        r.bulk("len");
        r.integer(total);
    }

    /** table[i * (|b|+1) + j] = LCS length of a[0, i) and b[0, j). */
    private static int[] table(byte[] a, byte[] b) {
        int width = b.length + 1;
        int[] t = new int[(a.length + 1) * width];
        for (int i = 1; i <= a.length; i++) {
            for (int j = 1; j <= b.length; j++) {
                t[i * width + j] = a[i - 1] == b[j - 1] ? t[(i - 1) * width + j - 1] + 1
                        : Math.max(t[(i - 1) * width + j], t[i * width + j - 1]);
            }
        }
        return t;
    }

    /**
     * Walks from the table's corner to its edge, filling {@code common} from its end and collecting each
     * run of contiguous matches as a range pair, the last run first.
     */
    private static void walkBack(byte[] a, byte[] b, int[] t, byte[] common, List<Match> matches) {
        int width = b.length + 1;
        int i = a.length;
        int j = b.length;
        int k = common.length;
        int runA = -1;
        int runB = -1;
        int runEndA = -1;
        int runEndB = -1;
        while (i > 0 && j > 0) {
            if (a[i - 1] == b[j - 1]) {
                common[--k] = a[i - 1];
                if (runA == -1) {
                    runEndA = i - 1;
                    runEndB = j - 1;
                }
                runA = i - 1;
                runB = j - 1;
                i--;
                j--;
                if (runA == 0 || runB == 0) {
                    matches.add(new Match(runA, runEndA, runB, runEndB, runEndA - runA + 1));
                    runA = -1;
                }
            } else {
                if (t[(i - 1) * width + j] > t[i * width + j - 1]) {
                    i--;
                } else {
                    j--;
                }
                if (runA != -1) {
                    matches.add(new Match(runA, runEndA, runB, runEndB, runEndA - runA + 1));
                    runA = -1;
                }
            }
        }
    }
}
