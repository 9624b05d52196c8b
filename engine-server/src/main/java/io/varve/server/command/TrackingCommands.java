package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.util.ArrayList;
import java.util.List;

/** CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO: a connection's side of client-side caching. */
final class TrackingCommands {

    private TrackingCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.subcommand("client", "tracking", -3, "noscript loading stale");
        b.subcommand("client", "caching", 3, "noscript loading stale");
        b.subcommand("client", "getredir", 2, "noscript loading stale");
        b.subcommand("client", "trackinginfo", 2, "noscript loading stale");
    }

    /** Runs the subcommand if it is one of these; returns false otherwise. */
    static boolean handle(String sub, CommandCall c, Dispatcher d) {
        switch (sub) {
            case "tracking" -> tracking(c, d.tracking());
            case "caching" -> caching(c, d.tracking());
            case "getredir" -> {
                TrackedClient t = d.tracking().of(c.connection());
                c.reply().integer(t == null ? -1 : t.redirect);
            }
            case "trackinginfo" -> trackingInfo(c, d.tracking());
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * CLIENT TRACKING ON|OFF with its options, checked in Redis's order: the options first (a REDIRECT target must
     * exist even for OFF), then, for ON, their compatibility with each other and with the client's current mode.
     * A client already tracking may turn it on again to change its redirect target, its NOLOOP, or add prefixes;
     * only a switch of BCAST or between OPTIN and OPTOUT needs tracking turned off first.
     */
    private static void tracking(CommandCall c, TrackingTable table) {
        long redirect = 0;
        boolean broadcast = false;
        boolean optIn = false;
        boolean optOut = false;
        boolean noLoop = false;
        List<byte[]> prefixes = new ArrayList<>();
        for (int i = 3; i < c.argCount(); i++) {
            boolean more = i + 1 < c.argCount();
            if (c.argIs(i, "redirect") && more) {
                if (redirect != 0) {
                    throw new RedisError("ERR A client can only redirect to a single other client");
                }
                redirect = c.argLong(++i);
                if (!table.connected(redirect)) {
                    throw new RedisError("ERR The client ID you want redirect to does not exist");
                }
            } else if (c.argIs(i, "bcast")) {
                broadcast = true;
            } else if (c.argIs(i, "optin")) {
                optIn = true;
            } else if (c.argIs(i, "optout")) {
                optOut = true;
            } else if (c.argIs(i, "noloop")) {
                noLoop = true;
            } else if (c.argIs(i, "prefix") && more) {
                prefixes.add(c.arg(++i));
            } else {
                throw RedisError.syntax();
            }
        }
        Connection me = c.connection();
        if (c.argIs(2, "off")) {
            table.disable(me);
            c.reply().ok();
            return;
        }
        if (!c.argIs(2, "on")) {
            throw RedisError.syntax();
        }
        TrackedClient current = table.of(me);
        if (!broadcast && !prefixes.isEmpty()) {
            throw new RedisError("ERR PREFIX option requires BCAST mode to be enabled");
        }
        if (current != null && current.broadcast != broadcast) {
            throw new RedisError("ERR You can't switch BCAST mode on/off before disabling tracking for this "
                    + "client, and then re-enabling it with a different mode.");
        }
        if (broadcast && (optIn || optOut)) {
            throw new RedisError("ERR OPTIN and OPTOUT are not compatible with BCAST");
        }
        if (optIn && optOut) {
            throw new RedisError("ERR You can't specify both OPTIN mode and OPTOUT mode");
        }
        if (current != null && ((optIn && current.optOut) || (optOut && current.optIn))) {
            throw new RedisError("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
                    + "and then re-enabling it with a different mode.");
        }
        List<byte[]> all = new ArrayList<>();
        if (broadcast) {
            List<byte[]> existing = current == null ? List.of() : current.prefixes;
            checkPrefixes(existing, prefixes);
            all.addAll(existing);
            if (prefixes.isEmpty() && all.stream().noneMatch(p -> p.length == 0)) {
                all.add(new byte[0]); // no PREFIX: every key
            }
            all.addAll(prefixes);
            all.sort(java.util.Arrays::compareUnsigned); // TRACKINGINFO lists them in key order, as Redis does
        }
        TrackedClient enabled = new TrackedClient(me, redirect, broadcast, optIn, optOut, noLoop, all);
        // CLIENT commands keep a CACHING choice for the command after them, CLIENT TRACKING ON included.
        enabled.cachingChosen = current != null && current.cachingChosen;
        table.enable(enabled);
        c.reply().ok();
    }

    /**
     * Redis refuses a prefix that starts, or is started by, one of the client's prefixes or another given
     * prefix (an equal one included): a key would be sent twice.
     */
    private static void checkPrefixes(List<byte[]> existing, List<byte[]> added) {
        for (int i = 0; i < added.size(); i++) {
            byte[] p = added.get(i);
            for (byte[] e : existing) {
                if (overlap(e, p)) {
                    throw new RedisError("ERR Prefix '" + TrackedClient.text(p) + "' overlaps with an existing "
                            + "prefix '" + TrackedClient.text(e) + "'. Prefixes for a single client must not overlap.");
                }
            }
            for (int j = i + 1; j < added.size(); j++) {
                byte[] q = added.get(j);
                if (overlap(p, q)) {
                    throw new RedisError("ERR Prefix '" + TrackedClient.text(p) + "' overlaps with another provided "
                            + "prefix '" + TrackedClient.text(q) + "'. Prefixes for a single client must not overlap.");
                }
            }
        }
    }

    private static boolean overlap(byte[] a, byte[] b) {
        return TrackedClient.startsWith(a, b) || TrackedClient.startsWith(b, a);
    }

    private static void caching(CommandCall c, TrackingTable table) {
        TrackedClient t = table.of(c.connection());
        if (t == null || !(t.optIn || t.optOut)) {
            throw new RedisError("ERR CLIENT CACHING can be called only when the client is in tracking mode with "
                    + "OPTIN or OPTOUT mode enabled");
        }
        if (c.argIs(2, "yes")) {
            if (!t.optIn) {
                throw new RedisError("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
            }
        } else if (c.argIs(2, "no")) {
            if (!t.optOut) {
                throw new RedisError("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
            }
        } else {
            throw RedisError.syntax();
        }
        t.cachingChosen = true;
        c.reply().ok();
    }

    private static void trackingInfo(CommandCall c, TrackingTable table) {
        TrackedClient t = table.of(c.connection());
        Reply r = c.reply();
        r.mapHeader(3);
        r.bulk("flags");
        List<String> flags = t == null ? List.of("off") : t.flags();
        r.setHeader(flags.size());
        for (String f : flags) {
            r.simple(f);
        }
        r.bulk("redirect");
        r.integer(t == null ? -1 : t.redirect);
        r.bulk("prefixes");
        List<byte[]> prefixes = t == null ? List.of() : t.prefixes;
        r.arrayHeader(prefixes.size());
        for (byte[] p : prefixes) {
            r.bulk(p);
        }
    }
}
