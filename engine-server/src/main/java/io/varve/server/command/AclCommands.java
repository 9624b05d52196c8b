package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * ACL: users with passwords and command, key and channel rules (Redis 6+), kept in memory. Without an aclfile,
 * ACL SAVE and LOAD answer Redis's error for a server that has none; ACL LOG records nothing.
 */
final class AclCommands {

    private AclCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("acl", -2, "", (CoordinatedHandler) AclCommands::acl);
        b.subcommand("acl", "whoami", 2, "noscript loading stale");
        b.subcommand("acl", "users", 2, "admin noscript loading stale");
        b.subcommand("acl", "list", 2, "admin noscript loading stale");
        b.subcommand("acl", "cat", -2, "noscript loading stale");
        b.subcommand("acl", "setuser", -3, "admin noscript loading stale");
        b.subcommand("acl", "deluser", -3, "admin noscript loading stale");
        b.subcommand("acl", "getuser", 3, "admin noscript loading stale");
        b.subcommand("acl", "dryrun", -4, "admin noscript loading stale");
        b.subcommand("acl", "genpass", -2, "noscript loading stale");
        b.subcommand("acl", "log", -2, "admin noscript loading stale");
        b.subcommand("acl", "save", 2, "admin noscript loading stale");
        b.subcommand("acl", "load", 2, "admin noscript loading stale");
        b.subcommand("acl", "help", 2, "loading stale");
    }

    private static void acl(CommandCall c, Dispatcher d) {
        AclRegistry acl = d.acl();
        Reply r = c.reply();
        switch (c.argText(1).toLowerCase(Locale.ROOT)) {
            case "whoami" -> r.bulk(acl.userName(c.connection()));
            case "users" -> {
                List<AclUser> users = acl.sorted();
                r.arrayHeader(users.size());
                users.forEach(u -> r.bulk(u.name));
            }
            case "list" -> {
                List<AclUser> users = acl.sorted();
                r.arrayHeader(users.size());
                users.forEach(u -> r.bulk(u.describe(defaultPasswordHash(c))));
            }
            case "cat" -> cat(c, d.table());
            case "setuser" -> setUser(c, d);
            case "deluser" -> {
                long deleted = 0;
                for (int i = 2; i < c.argCount(); i++) {
                    String name = c.argText(i);
                    if (acl.delete(name)) {
                        deleted++;
                        c.server().killClients(x -> acl.userName(x).equals(name), c.connection());
                    }
                }
                r.integer(deleted);
            }
            case "getuser" -> getUser(c, acl);
            case "dryrun" -> dryRun(c, d);
            case "genpass" -> {
                long bits = c.argCount() > 2 ? c.argLong(2) : 256;
                if (bits <= 0 || bits > 4096) {
                    throw new RedisError("ERR ACL GENPASS argument must be the number of bits for the output "
                            + "password, a positive number up to 4096");
                }
                byte[] random = new byte[(int) ((bits + 7) / 8)];
                new SecureRandom().nextBytes(random);
                r.bulk(HexFormat.of().formatHex(random).substring(0, (int) ((bits + 3) / 4)));
            }
            case "log" -> {
                if (c.argCount() == 3 && c.argIs(2, "reset")) {
                    r.ok();
                } else if (c.argCount() <= 3) {
                    if (c.argCount() == 3) {
                        c.argLong(2);
                    }
                    r.arrayHeader(0); // denials are not recorded
                } else {
                    throw RedisError.syntax();
                }
            }
            case "save", "load" -> throw new RedisError("ERR This Redis instance is not configured to use an ACL "
                    + "file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG "
                    + "REWRITE (assuming you have a Redis configuration file set) in order to store users in the "
                    + "Redis configuration.");
            case "help" -> {
                String[] lines = {"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "CAT [<category>]", "    List all commands that belong to <category>, or all command categories",
                    "DELUSER <username> [<username> ...]", "    Delete a list of users.",
                    "DRYRUN <username> <command> [<arg> ...]", "    Returns whether the user can execute the command.",
                    "GETUSER <username>", "    Get the user's details.",
                    "GENPASS [<bits>]", "    Generate a secure 256-bit user password.",
                    "LIST", "    Show users details in config file format.",
                    "LOG [<count> | RESET]", "    Show the ACL log entries.",
                    "SETUSER <username> <attribs> ...", "    Create or modify a user with the specified attributes.",
                    "USERS", "    List all the registered usernames.",
                    "WHOAMI", "    Return the current connection username.",
                    "HELP", "    Print this help."};
                r.arrayHeader(lines.length);
                for (String line : lines) {
                    r.simple(line);
                }
            }
            default -> throw new RedisError(Dispatcher.unknownSubcommand(d.table().lookup("acl"), c.args()));
        }
    }

    private static String defaultPasswordHash(CommandCall c) {
        String pass = c.server().requirePass();
        return pass == null ? null : AclUser.sha256(pass);
    }

    private static void setUser(CommandCall c, Dispatcher d) {
        String name = c.argText(2);
        if (name.chars().anyMatch(ch -> ch == ' ' || ch == 0)) {
            throw new RedisError("ERR Usernames can't contain spaces or null characters");
        }
        List<String> rules = new ArrayList<>();
        for (int i = 3; i < c.argCount(); i++) {
            rules.add(c.argText(i));
        }
        AclUser current = d.acl().user(name);
        AclUser changed = (current == null ? AclUser.created(name) : current).with(rules, d.table());
        d.acl().put(changed);
        c.reply().ok();
    }

    private static void getUser(CommandCall c, AclRegistry acl) {
        AclUser u = acl.user(c.argText(2));
        Reply r = c.reply();
        if (u == null) {
            r.nullArray();
            return;
        }
        r.mapHeader(6);
        r.bulk("flags");
        List<String> flags = new ArrayList<>();
        flags.add(u.enabled ? "on" : "off");
        if (u.noPass && !(u.name.equals("default") && c.server().requirePass() != null)) {
            flags.add("nopass");
        }
        flags.add("sanitize-payload");
        r.arrayHeader(flags.size());
        flags.forEach(r::bulk);
        r.bulk("passwords");
        List<String> passwords = new ArrayList<>(u.passwords);
        String defaultHash = defaultPasswordHash(c);
        if (u.name.equals("default") && defaultHash != null) {
            passwords = List.of(defaultHash);
        }
        r.arrayHeader(passwords.size());
        passwords.forEach(r::bulk);
        r.bulk("commands");
        r.bulk(u.describeCommands());
        r.bulk("keys");
        r.bulk(u.describeKeys());
        r.bulk("channels");
        r.bulk(u.describeChannels());
        r.bulk("selectors");
        r.arrayHeader(0);
    }

    private static void cat(CommandCall c, CommandTable table) {
        Reply r = c.reply();
        if (c.argCount() == 2) {
            r.arrayHeader(AclCategories.ALL.size());
            AclCategories.ALL.forEach(r::bulk);
            return;
        }
        if (c.argCount() > 3) {
            throw RedisError.wrongArity("acl|cat");
        }
        String category = c.argText(2).toLowerCase(Locale.ROOT);
        if (!AclCategories.ALL.contains(category)) {
            throw new RedisError("ERR Unknown category '" + c.argText(2) + "'");
        }
        List<String> names = new ArrayList<>();
        for (CommandSpec spec : table.all()) {
            if (CommandIntrospection.categories(spec).contains(category) || spec.group().equals(category)) {
                names.add(spec.name());
            }
            for (CommandSpec sub : spec.subcommands().values()) {
                if (CommandIntrospection.categories(sub).contains(category) || sub.group().equals(category)) {
                    names.add(sub.name());
                }
            }
        }
        r.arrayHeader(names.size());
        names.forEach(r::bulk);
    }

    private static void dryRun(CommandCall c, Dispatcher d) {
        AclUser u = d.acl().user(c.argText(2));
        if (u == null) {
            throw new RedisError("ERR User '" + c.argText(2) + "' not found");
        }
        byte[][] args = java.util.Arrays.copyOfRange(c.args(), 3, c.argCount());
        CommandSpec spec = d.table().lookup(args[0]);
        if (spec == null) {
            throw new RedisError("ERR Command '" + c.argText(3) + "' not found");
        }
        CommandSpec effective = spec.subcommands().isEmpty() || args.length < 2 ? spec : spec.subcommand(args);
        if (effective == null || !effective.arityAccepts(args.length)) {
            throw new RedisError("ERR wrong number of arguments for '" + spec.name() + "' command");
        }
        String refused = AclRegistry.refusal(u, effective, args);
        if (refused == null) {
            c.reply().ok();
        } else {
            c.reply().bulk("This user has no permissions to run the '" + effective.name() + "' command");
        }
    }
}
