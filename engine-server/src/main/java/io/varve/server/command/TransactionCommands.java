package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.store.Keyspace;
import io.varve.server.store.Metadata;

import java.util.List;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH with Redis's semantics, built on the server's own locks (the
 * engine has no transactions): queued commands reply QUEUED; a command refused while queuing (unknown,
 * wrong arity, not authenticated) makes EXEC abort with EXECABORT; a command failing inside EXEC leaves the
 * others applied, its error in EXEC's array; EXEC runs in the {@link CommandGate}'s exclusive side, so it
 * is atomic to every other client. Replicated, its commands' commits are gathered into one
 * ({@link Keyspace#commitTogether}) and proposed as one Raft entry: every member applies all of them or
 * none, whatever happens to the leader meanwhile. WATCH makes EXEC answer a null array once a watched key was written
 * by anyone (see {@link WatchRegistry}), flushed, or has expired since it was watched.
 */
final class TransactionCommands {

    private TransactionCommands() {
    }

    static final CoordinatedHandler EXEC = TransactionCommands::exec;

    static void register(CommandTable.Builder b) {
        b.add("multi", 1, "noscript loading stale fast allow_busy runs_in_multi", (CoordinatedHandler) TransactionCommands::multi);
        b.add("exec", 1, "noscript loading stale skip_slowlog runs_in_multi runs_queued", EXEC);
        b.add("discard", 1, "noscript loading stale fast allow_busy runs_in_multi", (CoordinatedHandler) TransactionCommands::discard);
        b.add("watch", -2, "noscript loading stale fast allow_busy runs_in_multi", 1, -1, 1,
                (CoordinatedHandler) TransactionCommands::watch);
        b.add("unwatch", 1, "noscript loading stale fast allow_busy", (CoordinatedHandler) TransactionCommands::unwatch);
    }

    private static void multi(CommandCall c, Dispatcher d) {
        MultiState tx = c.connection().transaction();
        if (tx.active()) {
            throw new RedisError("ERR MULTI calls can not be nested");
        }
        tx.begin();
        c.reply().ok();
    }

    private static void discard(CommandCall c, Dispatcher d) {
        MultiState tx = c.connection().transaction();
        if (!tx.active()) {
            throw new RedisError("ERR DISCARD without MULTI");
        }
        tx.end();
        unwatchAll(c.connection(), d);
        c.reply().ok();
    }

    private static void watch(CommandCall c, Dispatcher d) {
        MultiState tx = c.connection().transaction();
        if (tx.active()) {
            throw new RedisError("ERR WATCH inside MULTI is not allowed");
        }
        int database = c.connection().database();
        for (int i = 1; i < c.argCount(); i++) {
            byte[] name = c.arg(i);
            WatchRegistry.Key key = new WatchRegistry.Key(database, name);
            d.watches().watch(key, tx); // before reading the expiry: a write after this point is seen
            Metadata header = c.keyspace().header(name);
            tx.watch(key, header == null ? 0 : header.expireAt());
        }
        c.reply().ok();
    }

    private static void unwatch(CommandCall c, Dispatcher d) {
        unwatchAll(c.connection(), d);
        c.reply().ok();
    }

    /**
     * Forgets the connection's watched keys (after EXEC, DISCARD, UNWATCH, RESET, or when it closes). The keys
     * leave the registry before the dirty mark is reset: UNWATCH, DISCARD and RESET run beside writers (they
     * take no gate), and a write that marks the transaction while it is still registered must be erased by
     * the reset, not land after it and abort a later EXEC that watches nothing.
     */
    static void unwatchAll(Connection connection, Dispatcher d) {
        MultiState tx = connection.transaction();
        for (MultiState.Watched w : tx.watched()) {
            d.watches().unwatch(w.key(), tx);
        }
        tx.clearWatches();
    }

    /** EXEC was refused before running (not the leader): the transaction ends and runs nothing. */
    static void discardRefused(Connection connection, Dispatcher d) {
        MultiState tx = connection.transaction();
        if (tx.active()) {
            tx.end();
        }
        unwatchAll(connection, d);
    }

    private static void exec(CommandCall c, Dispatcher d) {
        Connection connection = c.connection();
        MultiState tx = connection.transaction();
        if (!tx.active()) {
            throw new RedisError("ERR EXEC without MULTI");
        }
        if (tx.failed()) {
            tx.end();
            unwatchAll(connection, d);
            throw new RedisError("EXECABORT Transaction discarded because of previous errors.");
        }
        try (CommandGate.Held exclusive = d.gate().exclusive()) {
            List<byte[][]> commands = tx.end();
            boolean abort = tx.dirty() || watchedKeyExpired(tx, c.keyspace().now());
            unwatchAll(connection, d);
            if (abort) {
                c.reply().nullArray();
                return;
            }
            c.reply().arrayHeader(commands.size());
            Runnable run = () -> {
                for (byte[][] args : commands) {
                    d.executeInsideExec(connection, args, c.reply());
                }
            };
            tx.executing(true);
            try {
                if (c.server().routing().replicated()) {
                    // One Raft entry for all of them: a leader deposed half-way must not leave a prefix applied.
                    // If that entry fails, the error replaces the whole reply.
                    Keyspace ks = c.keyspace();
                    ks.blocking().signalAfter(() -> ks.commitTogether(run));
                } else {
                    c.keyspace().blocking().signalAfter(run);
                }
            } finally {
                tx.executing(false);
            }
        }
    }

    /** Redis counts a watched key that expired after WATCH as modified; an expiry is a deletion nobody wrote. */
    private static boolean watchedKeyExpired(MultiState tx, long now) {
        for (MultiState.Watched w : tx.watched()) {
            if (w.expireAt() != 0 && w.expireAt() <= now) {
                return true;
            }
        }
        return false;
    }
}
