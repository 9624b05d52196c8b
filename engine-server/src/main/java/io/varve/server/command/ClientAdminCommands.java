package io.varve.server.command;

import io.varve.server.resp.RedisError;

import java.util.function.Predicate;

/** CLIENT KILL, PAUSE, UNPAUSE and NO-EVICT: the subcommands that act on other connections or the server. */
final class ClientAdminCommands {

    private ClientAdminCommands() {
    }

    /** Runs the subcommand if it is one of these; returns false otherwise. */
    static boolean handle(String sub, CommandCall c, Dispatcher d) {
        switch (sub) {
            case "kill" -> kill(c);
            case "reply" -> ClientReplyMode.clientReply(c);
            case "unblock" -> unblock(c);
            case "pause" -> {
                if (c.argCount() != 3 && c.argCount() != 4) {
                    throw RedisError.wrongArity("client|pause");
                }
                long millis;
                try {
                    millis = c.argLong(2);
                } catch (RedisError e) {
                    throw new RedisError("ERR timeout is not an integer or out of range");
                }
                if (millis < 0) {
                    throw new RedisError("ERR timeout is negative");
                }
                if (millis > Long.MAX_VALUE - System.currentTimeMillis()) {
                    throw new RedisError("ERR timeout is out of range"); // Redis: the absolute deadline would overflow
                }
                boolean writesOnly = false;
                if (c.argCount() == 4) {
                    if (c.argIs(3, "write")) {
                        writesOnly = true;
                    } else if (!c.argIs(3, "all")) {
                        throw RedisError.syntax();
                    }
                }
                d.pause().pause(millis, writesOnly);
                c.reply().ok();
            }
            case "unpause" -> {
                d.pause().unpause();
                c.reply().ok();
            }
            case "no-evict", "no-touch" -> {
                if (c.argCount() != 3 || !(c.argIs(2, "on") || c.argIs(2, "off"))) {
                    throw RedisError.syntax();
                }
                c.reply().ok(); // nothing is evicted here (no maxmemory), so there is nothing to exempt
            }
            default -> {
                return TrackingCommands.handle(sub, c, d);
            }
        }
        return true;
    }

    /** CLIENT KILL TYPE: Varve has normal and pub/sub clients only, no replica or master connections. */
    private static Predicate<Connection> ofType(String type) {
        return switch (type.toLowerCase(java.util.Locale.ROOT)) {
            case "normal" -> x -> !x.inSubscriberMode();
            case "pubsub" -> Connection::inSubscriberMode;
            case "master", "replica", "slave" -> x -> false;
            default -> throw new RedisError("ERR Unknown client type '" + type + "'");
        };
    }

    /** CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 when that client's blocking command was waiting, else 0. */
    private static void unblock(CommandCall c) {
        if (c.argCount() != 3 && c.argCount() != 4) {
            throw RedisError.wrongArity("client|unblock");
        }
        long id = c.argLong(2);
        boolean withError = false;
        if (c.argCount() == 4) {
            if (c.argIs(3, "error")) {
                withError = true;
            } else if (!c.argIs(3, "timeout")) {
                throw new RedisError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            }
        }
        boolean unblocked = false;
        for (Connection other : c.server().clients()) {
            if (other.id() == id) {
                unblocked = other.unblock(withError);
            }
        }
        c.reply().integer(unblocked ? 1 : 0);
    }

    /**
     * {@code CLIENT KILL addr:port} (the old form: OK or an error) or {@code CLIENT KILL <filter> <value> ...}
     * with ID, ADDR, LADDR, TYPE, USER and SKIPME filters (the new form: how many were killed).
     */
    private static void kill(CommandCall c) {
        Connection me = c.connection();
        if (c.argCount() == 3) {
            String addr = c.argText(2);
            int killed = c.server().killClients(x -> Connection.address(x.remote()).equals(addr), me);
            if (killed == 0) {
                throw new RedisError("ERR No such client");
            }
            c.reply().ok();
            return;
        }
        if (c.argCount() < 4 || c.argCount() % 2 != 0) {
            throw RedisError.syntax();
        }
        Predicate<Connection> which = x -> true;
        boolean skipMe = true;
        for (int i = 2; i < c.argCount(); i += 2) {
            String value = c.argText(i + 1);
            if (c.argIs(i, "id")) {
                long id;
                try {
                    id = c.argLong(i + 1);
                } catch (RedisError e) {
                    throw new RedisError("ERR client-id should be greater than 0");
                }
                if (id <= 0) {
                    throw new RedisError("ERR client-id should be greater than 0");
                }
                which = which.and(x -> x.id() == id);
            } else if (c.argIs(i, "addr")) {
                which = which.and(x -> Connection.address(x.remote()).equals(value));
            } else if (c.argIs(i, "laddr")) {
                which = which.and(x -> Connection.address(x.local()).equals(value));
            } else if (c.argIs(i, "type")) {
                which = which.and(ofType(value));
            } else if (c.argIs(i, "user")) {
                if (!value.equals("default")) {
                    throw new RedisError("ERR No such user '" + value + "'");
                }
            } else if (c.argIs(i, "skipme")) {
                if (value.equalsIgnoreCase("yes")) {
                    skipMe = true;
                } else if (value.equalsIgnoreCase("no")) {
                    skipMe = false;
                } else {
                    throw RedisError.syntax();
                }
            } else {
                throw RedisError.syntax();
            }
        }
        if (skipMe) {
            which = which.and(x -> x != me);
        }
        c.reply().integer(c.server().killClients(which, me));
    }
}
