package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/** PING, ECHO, AUTH, HELLO, QUIT, SELECT and CLIENT: commands about the connection itself. */
final class ConnectionCommands {

    private ConnectionCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("ping", -1, "fast runs_when_subscribed", ConnectionCommands::ping);
        b.add("echo", 2, "loading stale fast", c -> c.reply().bulk(c.arg(1)));
        b.add("auth", -2, "noscript loading stale fast no_auth allow_busy",
                (CoordinatedHandler) ConnectionCommands::auth);
        b.add("hello", -1, "noscript loading stale fast no_auth allow_busy",
                (CoordinatedHandler) ConnectionCommands::hello);
        b.add("quit", -1, "noscript loading stale fast no_auth allow_busy runs_when_subscribed runs_in_multi", c -> {
            c.connection().requestCloseAfterReply();
            c.reply().ok();
        });
        b.add("client", -2, "never_paused", (CoordinatedHandler) ConnectionCommands::client);
        for (String sub : List.of("id", "getname", "info")) {
            b.subcommand("client", sub, 2, "noscript loading stale");
        }
        b.subcommand("client", "setname", 3, "noscript loading stale");
        b.subcommand("client", "setinfo", 4, "noscript loading stale");
        b.subcommand("client", "help", 2, "loading stale");
        b.subcommand("client", "list", -2, "admin noscript loading stale");
        b.subcommand("client", "kill", -3, "admin noscript loading stale");
        b.subcommand("client", "pause", -3, "admin noscript loading stale");
        b.subcommand("client", "unpause", 2, "admin noscript loading stale");
        b.subcommand("client", "no-evict", 3, "admin noscript loading stale");
        b.subcommand("client", "no-touch", 3, "noscript loading stale");
        b.subcommand("client", "reply", 3, "noscript loading stale");
        b.subcommand("client", "unblock", -3, "admin noscript loading stale");
    }

    private static void ping(CommandCall c) {
        if (c.argCount() > 2) {
            throw RedisError.wrongArity("ping");
        }
        if (c.connection().protocol() == 2 && c.connection().subscriptions().any()) {
            // Subscriber mode answers with an array, so clients can tell it from a message.
            c.reply().arrayHeader(2);
            c.reply().bulk("pong");
            c.reply().bulk(c.argCount() == 2 ? c.arg(1) : new byte[0]);
            return;
        }
        if (c.argCount() == 2) {
            c.reply().bulk(c.arg(1));
        } else {
            c.reply().simple("PONG");
        }
    }

    private static void auth(CommandCall c, Dispatcher d) {
        if (c.argCount() > 3) {
            throw RedisError.syntax();
        }
        String pass = c.server().requirePass();
        if (pass == null && c.argCount() == 2) {
            throw new RedisError("ERR AUTH <password> called without any password configured for the default user. "
                    + "Are you sure your configuration is correct?");
        }
        byte[] user = c.argCount() == 3 ? c.arg(1) : Args.bytes("default");
        byte[] given = c.arg(c.argCount() - 1);
        checkCredentials(c, d, user, given);
        c.reply().ok();
    }

    /**
     * Authenticates the connection as {@code user} or throws WRONGPASS; compares in constant time. The default
     * user's password is requirepass; other users are the ACL's.
     */
    private static void checkCredentials(CommandCall c, Dispatcher d, byte[] user, byte[] password) {
        String name = new String(user, StandardCharsets.UTF_8);
        boolean ok;
        if (name.equals("default")) {
            String pass = c.server().requirePass();
            AclUser defaultUser = d.acl().user("default");
            ok = (pass == null || MessageDigest.isEqual(pass.getBytes(StandardCharsets.UTF_8), password))
                    && defaultUser != null && defaultUser.enabled;
        } else {
            AclUser u = d.acl().user(name);
            ok = u != null && u.enabled && u.checkPassword(password);
        }
        if (!ok) {
            throw new RedisError("WRONGPASS invalid username-password pair or user is disabled.");
        }
        d.acl().loggedIn(c.connection(), name);
        c.connection().authenticated(true);
    }

    private static void hello(CommandCall c, Dispatcher d) {
        int protocol = c.connection().protocol();
        int i = 1;
        if (c.argCount() > 1) {
            Long version = Args.tryParseLong(c.arg(1));
            if (version == null) {
                throw new RedisError("ERR Protocol version is not an integer or out of range");
            }
            if (version != 2 && version != 3) {
                throw new RedisError("NOPROTO unsupported protocol version");
            }
            protocol = version.intValue();
            i = 2;
        }
        byte[] user = null;
        byte[] password = null;
        String name = null;
        for (; i < c.argCount(); i++) {
            boolean more = i + 1 < c.argCount();
            if (c.argIs(i, "auth") && i + 2 < c.argCount()) {
                user = c.arg(i + 1);
                password = c.arg(i + 2);
                i += 2;
            } else if (c.argIs(i, "setname") && more) {
                name = c.argText(i + 1);
                checkClientName(name);
                i++;
            } else {
                throw new RedisError("ERR Syntax error in HELLO option '" + c.argText(i) + "'");
            }
        }
        if (user != null) {
            checkCredentials(c, d, user, password);
        }
        if (!c.connection().authenticated()) {
            throw new RedisError("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                    + "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select "
                    + "the RESP protocol version at the same time");
        }
        if (name != null) {
            c.connection().name(name.isEmpty() ? null : name);
        }
        c.connection().protocol(protocol);
        Reply r = c.reply();
        r.protocol(protocol);
        r.mapHeader(7);
        r.bulk("server");
        r.bulk("varve");
        r.bulk("version");
        r.bulk(c.server().version());
        r.bulk("proto");
        r.integer(protocol);
        r.bulk("id");
        r.integer(c.connection().id());
        r.bulk("mode");
        r.bulk("standalone");
        r.bulk("role");
        r.bulk("master");
        r.bulk("modules");
        r.arrayHeader(0);
    }

    private static void client(CommandCall c, Dispatcher d) {
        String sub = c.argText(1).toLowerCase(java.util.Locale.ROOT);
        Connection me = c.connection();
        Reply r = c.reply();
        switch (sub) {
            case "id" -> {
                requireArgs(c, 2, "client|id");
                r.integer(me.id());
            }
            case "getname" -> {
                requireArgs(c, 2, "client|getname");
                r.bulk(me.name());
            }
            case "setname" -> {
                requireArgs(c, 3, "client|setname");
                String name = c.argText(2);
                checkClientName(name);
                me.name(name.isEmpty() ? null : name);
                r.ok();
            }
            case "setinfo" -> {
                requireArgs(c, 4, "client|setinfo");
                String value = c.argText(3);
                if (c.argIs(2, "lib-name")) {
                    checkInfoValue("lib-name", value);
                    me.libName(value);
                } else if (c.argIs(2, "lib-ver")) {
                    checkInfoValue("lib-ver", value);
                    me.libVersion(value);
                } else {
                    throw new RedisError("ERR Unrecognized option '" + c.argText(2) + "'");
                }
                r.ok();
            }
            case "info" -> {
                requireArgs(c, 2, "client|info");
                r.verbatim(me.describe(System.currentTimeMillis()) + "\n");
            }
            case "list" -> {
                StringBuilder text = new StringBuilder();
                long now = System.currentTimeMillis();
                List<Connection> clients = c.server().clients();
                if (c.argCount() > 2) {
                    if (c.argIs(2, "type") && c.argCount() == 4) {
                        if (!c.argIs(3, "normal")) {
                            clients = List.of();
                        }
                    } else if (c.argIs(2, "id") && c.argCount() > 3) {
                        java.util.Set<Long> ids = new java.util.HashSet<>();
                        for (int i = 3; i < c.argCount(); i++) {
                            ids.add(c.argLong(i));
                        }
                        clients = clients.stream().filter(x -> ids.contains(x.id())).toList();
                    } else {
                        throw RedisError.syntax();
                    }
                }
                for (Connection other : clients) {
                    text.append(other.describe(now)).append('\n');
                }
                r.verbatim(text.toString());
            }
            case "help" -> {
                String[] lines = {"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "ID", "    Return the ID of the current connection.",
                    "GETNAME", "    Return the name of the current connection.",
                    "SETNAME <name>", "    Assign the name <name> to the current connection.",
                    "SETINFO <LIB-NAME|LIB-VER> <value>", "    Record the client library's name or version.",
                    "INFO", "    Return information about the current client connection.",
                    "LIST [TYPE normal] [ID <id> ...]", "    Return information about client connections.",
                    "KILL <ip:port> | KILL [ID <id>] [ADDR <ip:port>] [LADDR <ip:port>] [USER <name>] [SKIPME yes|no]",
                    "    Close connections, by address or by the filters given.",
                    "PAUSE <timeout> [WRITE|ALL]", "    Suspend all, or only writing, clients for <timeout> milliseconds.",
                    "UNPAUSE", "    Stop the pause in force.",
                    "NO-EVICT (ON|OFF)", "    Accepted; nothing is evicted.",
                    "HELP", "    Print this help."};
                r.arrayHeader(lines.length);
                for (String line : lines) {
                    r.simple(line);
                }
            }
            default -> {
                if (!ClientAdminCommands.handle(sub, c, d)) {
                    throw new RedisError("ERR unknown subcommand '" + c.argText(1) + "'. Try CLIENT HELP.");
                }
            }
        }
    }

    private static void requireArgs(CommandCall c, int count, String name) {
        if (c.argCount() != count) {
            throw RedisError.wrongArity(name);
        }
    }

    private static void checkClientName(String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch < '!' || ch > '~') {
                throw new RedisError("ERR Client names cannot contain spaces, newlines or special characters.");
            }
        }
    }

    private static void checkInfoValue(String attribute, String value) {
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (ch < '!' || ch > '~') {
                throw new RedisError("ERR " + attribute + " cannot contain spaces, newlines or special characters.");
            }
        }
    }
}
