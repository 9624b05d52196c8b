package io.varve.server.command;

import io.varve.server.resp.RedisError;

/**
 * What HSCAN, SSCAN and ZSCAN share: their options after the cursor (MATCH, COUNT, and for HSCAN NOVALUES)
 * and the owner name under which their cursors are kept.
 */
record CollectionScan(Glob glob, long count, boolean noValues) {

    /** Parses the options from argument 3 on; NOVALUES only where {@code allowNoValues}. */
    static CollectionScan parse(CommandCall c, boolean allowNoValues) {
        Glob glob = null;
        long count = 10;
        boolean noValues = false;
        for (int i = 3; i < c.argCount(); i++) {
            if (allowNoValues && c.argIs(i, "novalues")) {
                noValues = true;
            } else if (i + 1 < c.argCount() && c.argIs(i, "match")) {
                glob = new Glob(c.arg(++i));
            } else if (i + 1 < c.argCount() && c.argIs(i, "count")) {
                count = c.argLong(++i);
                if (count < 1) {
                    throw RedisError.syntax();
                }
            } else {
                throw RedisError.syntax();
            }
        }
        return new CollectionScan(glob, count, noValues);
    }

    /** The cursor owner of a scan of {@code key} by the command tagged {@code tag}, so scans never share cursors. */
    static byte[] cursorOwner(char tag, byte[] key) {
        byte[] owner = new byte[key.length + 1];
        owner[0] = (byte) tag;
        System.arraycopy(key, 0, owner, 1, key.length);
        return owner;
    }
}
