package io.varve.server.command;

import io.varve.server.resp.RedisError;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One ACL user (Redis 6+): whether it is enabled, its password hashes, and its command, key and channel rules,
 * changed by ACL SETUSER rules. Command rules are kept in the order given and evaluated in that order, so a later
 * rule overrides an earlier one for the commands both name, as Redis applies them.
 *
 * <p>Immutable: SETUSER builds a changed copy and the registry swaps it in, so a permission check on another
 * thread always sees one consistent user.
 */
final class AclUser {

    /** A key pattern and whether it grants reads, writes or both ({@code ~p}, {@code %R~p}, {@code %W~p}). */
    record KeyPattern(String pattern, boolean read, boolean write) {
        String describe() {
            return (read && write ? "~" : read ? "%R~" : "%W~") + pattern;
        }
    }

    final String name;
    final boolean enabled;
    final boolean noPass;
    /** SHA-256 of each password, in lower-case hex as ACL GETUSER shows them. */
    final Set<String> passwords;
    final List<String> commandRules;
    final List<KeyPattern> keys;
    final List<String> channels;

    private AclUser(String name, boolean enabled, boolean noPass, Set<String> passwords, List<String> commandRules,
                    List<KeyPattern> keys, List<String> channels) {
        this.name = name;
        this.enabled = enabled;
        this.noPass = noPass;
        this.passwords = passwords;
        this.commandRules = commandRules;
        this.keys = keys;
        this.channels = channels;
    }

    /** A user SETUSER creates: off, no password, no commands, no keys, no channels. */
    static AclUser created(String name) {
        return new AclUser(name, false, false, Set.of(), List.of(), List.of(), List.of());
    }

    /** The default user: every command, key and channel; its password is the server's requirepass. */
    static AclUser defaultUser() {
        return new AclUser("default", true, true, Set.of(), List.of("+@all"),
                List.of(new KeyPattern("*", true, true)), List.of("*"));
    }

    /** This user with {@code rules} applied in order; throws Redis's SETUSER error for a rule it refuses. */
    AclUser with(List<String> rules, CommandTable table) {
        boolean on = enabled;
        boolean nopass = noPass;
        Set<String> pass = new LinkedHashSet<>(passwords);
        List<String> commands = new ArrayList<>(commandRules);
        List<KeyPattern> keyPatterns = new ArrayList<>(keys);
        List<String> channelPatterns = new ArrayList<>(channels);
        for (String rule : rules) {
            String lower = rule.toLowerCase(Locale.ROOT);
            if (lower.equals("on")) {
                on = true;
            } else if (lower.equals("off")) {
                on = false;
            } else if (lower.equals("nopass")) {
                nopass = true;
                pass.clear();
            } else if (lower.equals("resetpass")) {
                nopass = false;
                pass.clear();
            } else if (rule.startsWith(">")) {
                pass.add(sha256(rule.substring(1)));
                nopass = false;
            } else if (rule.startsWith("<")) {
                if (!pass.remove(sha256(rule.substring(1)))) {
                    throw modifierError(rule, "no such password");
                }
            } else if (rule.startsWith("#")) {
                String hash = rule.substring(1).toLowerCase(Locale.ROOT);
                if (hash.length() != 64 || !hash.chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
                    throw modifierError(rule, "The password hash must be exactly 64 characters and contain "
                            + "only lowercase hexadecimal characters");
                }
                pass.add(hash);
                nopass = false;
            } else if (rule.startsWith("!")) {
                if (!pass.remove(rule.substring(1).toLowerCase(Locale.ROOT))) {
                    throw modifierError(rule, "no such password");
                }
            } else if (lower.equals("allkeys") || rule.equals("~*")) {
                keyPatterns.clear();
                keyPatterns.add(new KeyPattern("*", true, true));
            } else if (lower.equals("resetkeys")) {
                keyPatterns.clear();
            } else if (rule.startsWith("~")) {
                keyPatterns.add(new KeyPattern(rule.substring(1), true, true));
            } else if (rule.startsWith("%")) {
                int tilde = rule.indexOf('~');
                String perms = tilde < 0 ? "" : rule.substring(1, tilde).toUpperCase(Locale.ROOT);
                if (tilde < 0 || perms.isEmpty() || !perms.matches("[RW]+")) {
                    throw modifierError(rule, "Syntax error");
                }
                keyPatterns.add(new KeyPattern(rule.substring(tilde + 1), perms.contains("R"), perms.contains("W")));
            } else if (lower.equals("allchannels") || rule.equals("&*")) {
                channelPatterns.clear();
                channelPatterns.add("*");
            } else if (lower.equals("resetchannels")) {
                channelPatterns.clear();
            } else if (rule.startsWith("&")) {
                channelPatterns.add(rule.substring(1));
            } else if (lower.equals("allcommands") || lower.equals("+@all")) {
                commands.clear();
                commands.add("+@all");
            } else if (lower.equals("nocommands") || lower.equals("-@all")) {
                commands.clear();
                commands.add("-@all");
            } else if (rule.startsWith("+") || rule.startsWith("-")) {
                String target = lower.substring(1);
                boolean known = target.startsWith("@")
                        ? AclCategories.exists(target.substring(1))
                        : table.lookupFullName(target) != null;
                if (!known) {
                    throw modifierError(rule, "Unknown command or category name in ACL");
                }
                commands.add(rule.charAt(0) + target);
            } else if (lower.equals("reset")) {
                on = false;
                nopass = false;
                pass.clear();
                commands.clear();
                keyPatterns.clear();
                channelPatterns.clear();
            } else if (rule.startsWith("(")) {
                throw modifierError(rule, "Selectors are not supported");
            } else {
                throw modifierError(rule, "Syntax error");
            }
        }
        return new AclUser(name, on, nopass, Set.copyOf(pass), List.copyOf(commands), List.copyOf(keyPatterns),
                List.copyOf(channelPatterns));
    }

    private static RedisError modifierError(String rule, String reason) {
        return new RedisError("ERR Error in ACL SETUSER modifier '" + rule + "': " + reason);
    }

    boolean checkPassword(byte[] given) {
        if (noPass) {
            return true;
        }
        String hash = sha256(given);
        for (String p : passwords) {
            if (MessageDigest.isEqual(p.getBytes(StandardCharsets.US_ASCII), hash.getBytes(StandardCharsets.US_ASCII))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the rules allow {@code effective} (a command, or a subcommand as {@code container|sub}). */
    boolean allowsCommand(CommandSpec effective) {
        String full = effective.name();
        int bar = full.indexOf('|');
        String container = bar < 0 ? full : full.substring(0, bar);
        List<String> categories = CommandIntrospection.categories(effective);
        boolean allowed = false;
        for (String rule : commandRules) {
            boolean grant = rule.charAt(0) == '+';
            String target = rule.substring(1);
            boolean matches = target.startsWith("@")
                    ? target.equals("@all") || categories.contains(target.substring(1))
                            || target.substring(1).equals(effective.group()) // scripting, geo, hyperloglog
                    : target.equals(full) || target.equals(container);
            if (matches) {
                allowed = grant;
            }
        }
        return allowed;
    }

    boolean allowsAllKeys() {
        return keys.stream().anyMatch(k -> k.pattern.equals("*") && k.read && k.write);
    }

    boolean allowsKey(byte[] key, boolean write) {
        for (KeyPattern k : keys) {
            if ((write ? k.write : k.read) && new Glob(k.pattern.getBytes(StandardCharsets.UTF_8)).matches(key)) {
                return true;
            }
        }
        return false;
    }

    boolean allowsChannel(byte[] channel, boolean literal) {
        for (String c : channels) {
            if (c.equals("*")) {
                return true;
            }
            byte[] pattern = c.getBytes(StandardCharsets.UTF_8);
            if (literal ? java.util.Arrays.equals(pattern, channel) : new Glob(pattern).matches(channel)) {
                return true;
            }
        }
        return false;
    }

    /** The user as ACL LIST shows it: {@code user alice on #... ~keys &channels +@read}. */
    String describe(String defaultPasswordHash) {
        StringBuilder b = new StringBuilder("user ").append(name).append(enabled ? " on" : " off");
        if (name.equals("default") && defaultPasswordHash != null) {
            b.append(" #").append(defaultPasswordHash);
        } else if (noPass) {
            b.append(" nopass");
        } else {
            passwords.forEach(p -> b.append(" #").append(p));
        }
        b.append(" sanitize-payload");
        String k = describeKeys();
        if (!k.isEmpty()) {
            b.append(' ').append(k);
        }
        String c = describeChannels();
        b.append(' ').append(c.isEmpty() ? "resetchannels" : c);
        b.append(' ').append(describeCommands());
        return b.toString();
    }

    String describeKeys() {
        return String.join(" ", keys.stream().map(KeyPattern::describe).toList());
    }

    String describeChannels() {
        return String.join(" ", channels.stream().map(c -> "&" + c).toList());
    }

    String describeCommands() {
        List<String> shown = new ArrayList<>(commandRules);
        if (shown.isEmpty() || !(shown.getFirst().equals("+@all") || shown.getFirst().equals("-@all"))) {
            shown.addFirst("-@all");
        }
        return String.join(" ", shown);
    }

    static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
