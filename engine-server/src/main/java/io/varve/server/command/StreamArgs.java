package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.store.StreamId;
import io.varve.server.types.StreamTrim;

/** Stream command arguments as Redis parses them: IDs, range bounds, and XADD/XTRIM's trimming options. */
final class StreamArgs {

    static final String INVALID_ID = "ERR Invalid stream ID specified as stream command argument";

    private StreamArgs() {
    }

    /** An ID given by a client, and whether its sequence was given ({@code ms-*} leaves it to XADD). */
    record GivenId(StreamId id, boolean seqGiven) {
    }

    /**
     * {@code ms-seq}, or {@code ms} alone (sequence {@code missingSeq}); unless {@code strict}, {@code -} and
     * {@code +} are the smallest and largest IDs. With {@code allowAutoSeq}, {@code ms-*} is accepted.
     */
    static GivenId parse(byte[] arg, long missingSeq, boolean strict, boolean allowAutoSeq) {
        if (arg.length > 127) {
            throw new RedisError(INVALID_ID);
        }
        String s = new String(arg, java.nio.charset.StandardCharsets.ISO_8859_1);
        if (s.equals("-") || s.equals("+")) {
            if (strict) {
                throw new RedisError(INVALID_ID);
            }
            return new GivenId(s.equals("-") ? StreamId.MIN : StreamId.MAX, true);
        }
        int dash = s.indexOf('-');
        long ms = unsigned(dash < 0 ? s : s.substring(0, dash));
        if (dash < 0) {
            return new GivenId(new StreamId(ms, missingSeq), true);
        }
        String seq = s.substring(dash + 1);
        if (allowAutoSeq && seq.equals("*")) {
            return new GivenId(new StreamId(ms, 0), false);
        }
        return new GivenId(new StreamId(ms, unsigned(seq)), true);
    }

    static StreamId id(byte[] arg, long missingSeq) {
        return parse(arg, missingSeq, false, false).id();
    }

    static StreamId strictId(byte[] arg) {
        return parse(arg, 0, true, false).id();
    }

    /** A 64-bit unsigned decimal as C's strtoull reads it (a leading '+' and zeros allowed). */
    private static long unsigned(String s) {
        String digits = s.startsWith("+") ? s.substring(1) : s;
        if (digits.isEmpty() || digits.length() > 40 || !digits.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw new RedisError(INVALID_ID);
        }
        try {
            return Long.parseUnsignedLong(digits);
        } catch (NumberFormatException e) {
            throw new RedisError(INVALID_ID);
        }
    }

    /** A range's start: {@code (id} excludes it. */
    static StreamId rangeStart(byte[] arg) {
        if (arg.length > 1 && arg[0] == '(') {
            StreamId id = parse(java.util.Arrays.copyOfRange(arg, 1, arg.length), 0, true, false).id().next();
            if (id == null) {
                throw new RedisError("ERR invalid start ID for the interval");
            }
            return id;
        }
        return id(arg, 0);
    }

    /** A range's end: {@code (id} excludes it; a bare {@code ms} covers every sequence. */
    static StreamId rangeEnd(byte[] arg) {
        if (arg.length > 1 && arg[0] == '(') {
            StreamId id = parse(java.util.Arrays.copyOfRange(arg, 1, arg.length), -1L, true, false).id().previous();
            if (id == null) {
                throw new RedisError("ERR invalid end ID for the interval");
            }
            return id;
        }
        return id(arg, -1L);
    }

    /** XADD/XTRIM's options up to (for XADD) the ID; {@code next} is where XADD's ID is. */
    record Options(StreamTrim trim, boolean noMkStream, GivenId id, int next) {
    }

    static Options parseOptions(CommandCall c, boolean xadd) {
        Boolean byLength = null;
        long maxLength = 0;
        StreamId minId = null;
        boolean approximate = false;
        long limit = 0;
        boolean limitGiven = false;
        boolean noMkStream = false;
        GivenId id = null;
        int i = 2;
        for (; i < c.argCount(); i++) {
            int more = c.argCount() - 1 - i;
            if (xadd && c.arg(i).length == 1 && c.arg(i)[0] == '*') {
                break;
            } else if ((c.argIs(i, "maxlen") || c.argIs(i, "minid")) && more > 0) {
                if (byLength != null) {
                    throw new RedisError("ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
                }
                byLength = c.argIs(i, "maxlen");
                approximate = false;
                if (more >= 2 && c.arg(i + 1).length == 1 && (c.arg(i + 1)[0] == '~' || c.arg(i + 1)[0] == '=')) {
                    approximate = c.arg(i + 1)[0] == '~';
                    i++;
                }
                if (byLength) {
                    maxLength = c.argLong(i + 1);
                    if (maxLength < 0) {
                        throw new RedisError("ERR The MAXLEN argument must be >= 0.");
                    }
                } else {
                    minId = strictId(c.arg(i + 1));
                }
                i++;
            } else if (c.argIs(i, "limit") && more > 0) {
                limit = c.argLong(i + 1);
                if (limit < 0) {
                    throw new RedisError("ERR The LIMIT argument must be >= 0.");
                }
                limitGiven = true;
                i++;
            } else if (xadd && c.argIs(i, "nomkstream")) {
                noMkStream = true;
            } else if (xadd) {
                id = parse(c.arg(i), 0, true, true);
                break;
            } else {
                throw RedisError.syntax();
            }
        }
        if (limit != 0 && byLength == null) {
            throw new RedisError("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
        }
        if (!xadd && byLength == null) {
            throw new RedisError("ERR syntax error, XTRIM must be called with a trimming strategy");
        }
        if (limitGiven && !approximate) {
            throw new RedisError("ERR syntax error, LIMIT cannot be used without the special ~ option");
        }
        if (!limitGiven && approximate) {
            limit = StreamTrim.DEFAULT_APPROXIMATE_LIMIT;
        }
        StreamTrim trim = byLength == null ? null : new StreamTrim(byLength, maxLength, minId, approximate, limit);
        return new Options(trim, noMkStream, id, i);
    }

    /** XREAD's BLOCK milliseconds as nanoseconds (0: forever), with Redis's errors. */
    static long blockNanos(byte[] arg) {
        Long ms = Args.tryParseLong(arg);
        if (ms == null) {
            throw new RedisError("ERR timeout is not an integer or out of range");
        }
        if (ms < 0) {
            throw new RedisError("ERR timeout is negative");
        }
        if (ms > Long.MAX_VALUE / 1_000_000) {
            throw new RedisError("ERR timeout is out of range");
        }
        return ms * 1_000_000;
    }
}
