package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * The options of SET after the key and value: {@code [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]}.
 *
 * @param unit   the expiry's unit, or null for none
 * @param amount the expiry argument as given (relative or absolute, per {@code unit})
 */
record SetCommandOptions(boolean nx, boolean xx, boolean get, boolean keepTtl, Expiry.Unit unit, long amount) {

    /** Parses {@code args} from index 3 on; {@code ERR syntax error} or a not-an-integer error when malformed. */
    static SetCommandOptions parse(byte[][] args) {
        boolean nx = false;
        boolean xx = false;
        boolean get = false;
        boolean keepTtl = false;
        Expiry.Unit unit = null;
        long amount = 0;
        for (int i = 3; i < args.length; i++) {
            boolean hasNext = i + 1 < args.length;
            if (Args.isKeyword(args[i], "nx") && !xx) {
                nx = true;
            } else if (Args.isKeyword(args[i], "xx") && !nx) {
                xx = true;
            } else if (Args.isKeyword(args[i], "get")) {
                get = true;
            } else if (Args.isKeyword(args[i], "keepttl") && unit == null) {
                keepTtl = true;
            } else if (unit == null && !keepTtl && hasNext && expiryUnit(args[i]) != null) {
                unit = expiryUnit(args[i]);
                amount = Args.parseLong(args[++i]);
            } else {
                throw RedisError.syntax();
            }
        }
        return new SetCommandOptions(nx, xx, get, keepTtl, unit, amount);
    }

    /** Whether the SET overwrites without looking at the key's current state (no NX, XX, GET or KEEPTTL). */
    boolean blind() {
        return !nx && !xx && !get && !keepTtl;
    }

    /** The absolute expiry in Unix milliseconds, 0 for none; {@code ERR invalid expire time} when out of range. */
    long expireAt(long now) {
        return unit == null ? 0 : Expiry.absolute(amount, unit, now, "set", true);
    }

    /** The unit an expiry keyword (EX, PX, EXAT, PXAT) names, or null for another argument. */
    static Expiry.Unit expiryUnit(byte[] arg) {
        if (Args.isKeyword(arg, "ex")) {
            return Expiry.Unit.SECONDS;
        }
        if (Args.isKeyword(arg, "px")) {
            return Expiry.Unit.MILLISECONDS;
        }
        if (Args.isKeyword(arg, "exat")) {
            return Expiry.Unit.UNIX_SECONDS;
        }
        if (Args.isKeyword(arg, "pxat")) {
            return Expiry.Unit.UNIX_MILLISECONDS;
        }
        return null;
    }
}
