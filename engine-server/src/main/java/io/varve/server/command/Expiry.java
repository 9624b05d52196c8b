package io.varve.server.command;

import io.varve.server.resp.RedisError;

/** Turns relative and absolute expiry arguments into absolute Unix milliseconds, with Redis's checks. */
final class Expiry {

    enum Unit { SECONDS, MILLISECONDS, UNIX_SECONDS, UNIX_MILLISECONDS }

    private Expiry() {
    }

    /**
     * The absolute expiry for {@code amount} in {@code unit}, or {@code ERR invalid expire time in 'cmd'
     * command} when it does not fit in 64 bits (or, where {@code mustBePositive}, is not positive: SET and
     * friends refuse 0; EXPIRE accepts it and deletes).
     */
    static long absolute(long amount, Unit unit, long now, String command, boolean mustBePositive) {
        RedisError invalid = new RedisError("ERR invalid expire time in '" + command + "' command");
        if (mustBePositive && amount <= 0) {
            throw invalid;
        }
        long millis = amount;
        if (unit == Unit.SECONDS || unit == Unit.UNIX_SECONDS) {
            if (amount > Long.MAX_VALUE / 1000 || amount < Long.MIN_VALUE / 1000) {
                throw invalid;
            }
            millis = amount * 1000;
        }
        if (unit == Unit.SECONDS || unit == Unit.MILLISECONDS) {
            if ((millis > 0 && now > Long.MAX_VALUE - millis) || (millis < 0 && now < Long.MIN_VALUE - millis)) {
                throw invalid;
            }
            millis += now;
        }
        return millis;
    }
}
