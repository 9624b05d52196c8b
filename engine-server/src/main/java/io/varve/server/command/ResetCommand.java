package io.varve.server.command;

/**
 * RESET: returns the connection to the state of a new one — MULTI discarded, keys unwatched, every
 * subscription dropped, MONITOR stopped, database 0, RESP2, no name, and unauthenticated when a password is set — and
 * answers {@code +RESET}. Allowed in subscriber mode and inside MULTI (it is not queued).
 */
final class ResetCommand {

    private ResetCommand() {
    }

    static void register(CommandTable.Builder b) {
        b.add("reset", 1, "noscript loading stale fast no_auth allow_busy runs_when_subscribed runs_in_multi", (CoordinatedHandler) ResetCommand::reset);
    }

    private static void reset(CommandCall c, Dispatcher d) {
        Connection me = c.connection();
        if (me.transaction().active()) {
            me.transaction().end();
        }
        TransactionCommands.unwatchAll(me, d);
        PubSubCommands.unsubscribeAll(me, d);
        d.monitors().remove(me);
        d.tracking().disable(me);
        d.acl().loggedIn(me, "default");
        me.database(0);
        me.name(null);
        me.protocol(2);
        if (c.server().requirePass() != null) {
            me.authenticated(false);
        }
        c.reply().protocol(2);
        c.reply().simple("RESET");
    }
}
