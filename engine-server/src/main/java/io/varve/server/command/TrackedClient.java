package io.varve.server.command;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection's CLIENT TRACKING options while tracking is on: where its invalidations go, its mode and its
 * broadcast prefixes. Changed by the connection's own commands (one at a time) and, for the broken-redirect
 * mark, by whichever writer finds the redirect target gone; read by writers on any thread, hence volatile
 * fields and a copy-on-write prefix list.
 */
final class TrackedClient {

    final Connection connection;
    final long redirect;
    final boolean broadcast;
    final boolean optIn;
    final boolean optOut;
    final boolean noLoop;
    /** Broadcast prefixes ("" matches every key); empty outside broadcast mode. */
    final List<byte[]> prefixes;
    /** CLIENT CACHING yes/no given for the next command only. */
    volatile boolean cachingChosen;
    volatile boolean brokenRedirect;

    TrackedClient(Connection connection, long redirect, boolean broadcast, boolean optIn, boolean optOut,
                  boolean noLoop, List<byte[]> prefixes) {
        this.connection = connection;
        this.redirect = redirect;
        this.broadcast = broadcast;
        this.optIn = optIn;
        this.optOut = optOut;
        this.noLoop = noLoop;
        this.prefixes = List.copyOf(prefixes);
    }

    /** Whether a read by this client now enters the key table (default mode, honouring OPTIN/OPTOUT). */
    boolean tracksReads() {
        if (broadcast) {
            return false;
        }
        if (optIn) {
            return cachingChosen;
        }
        return !(optOut && cachingChosen);
    }

    /** The first of this client's prefixes {@code key} starts with, or null. */
    byte[] prefixOf(byte[] key) {
        for (byte[] p : prefixes) {
            if (startsWith(key, p)) {
                return p;
            }
        }
        return null;
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        if (key.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** CLIENT TRACKINGINFO's flags, in Redis's order. */
    List<String> flags() {
        List<String> flags = new ArrayList<>();
        flags.add("on");
        if (broadcast) {
            flags.add("bcast");
        }
        if (optIn) {
            flags.add("optin");
            if (cachingChosen) {
                flags.add("caching-yes");
            }
        }
        if (optOut) {
            flags.add("optout");
            if (cachingChosen) {
                flags.add("caching-no");
            }
        }
        if (noLoop) {
            flags.add("noloop");
        }
        if (brokenRedirect) {
            flags.add("broken_redirect");
        }
        return flags;
    }

    static String text(byte[] prefix) {
        return new String(prefix, StandardCharsets.UTF_8);
    }
}
