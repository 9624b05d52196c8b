package io.varve.server.command;

import io.varve.server.resp.RedisError;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's ACL users and which user each connection is authenticated as, and the permission check
 * {@link Admission} runs before a command: its command rules, then its keys, then its channels, refused with
 * Redis's NOPERM words.
 *
 * <p>Thread-safe: users are immutable and swapped in a concurrent map; a connection's user changes only by its
 * own AUTH, HELLO or RESET. While every connection is the default user and the default user may do everything,
 * {@link #restricted()} is false and the check costs one volatile read, so the event-loop shortcuts stay on.
 */
final class AclRegistry {

    private static final String DEFAULT = "default";

    private final Map<String, AclUser> users = new ConcurrentHashMap<>(Map.of(DEFAULT, AclUser.defaultUser()));
    /** Connections authenticated as another user than the default. */
    private final Map<Long, String> nonDefault = new ConcurrentHashMap<>();
    private volatile boolean restricted;

    boolean restricted() {
        return restricted;
    }

    private void recompute() {
        AclUser d = users.get(DEFAULT);
        restricted = !nonDefault.isEmpty() || d == null || !d.enabled || !d.commandRules.equals(List.of("+@all"))
                || !d.allowsAllKeys() || !d.channels.contains("*");
    }

    String userName(Connection connection) {
        return nonDefault.getOrDefault(connection.id(), DEFAULT);
    }

    AclUser user(String name) {
        return users.get(name);
    }

    /** Names in byte order, as ACL USERS and ACL LIST report them. */
    List<AclUser> sorted() {
        return List.copyOf(new TreeMap<>(users).values());
    }

    synchronized void put(AclUser user) {
        users.put(user.name, user);
        recompute();
    }

    synchronized boolean delete(String name) {
        if (name.equals(DEFAULT)) {
            throw new RedisError("ERR The 'default' user cannot be removed");
        }
        boolean removed = users.remove(name) != null;
        recompute();
        return removed;
    }

    /** The connection authenticated as {@code name} (AUTH, HELLO AUTH), or went back to the default (RESET). */
    void loggedIn(Connection connection, String name) {
        if (name.equals(DEFAULT)) {
            nonDefault.remove(connection.id());
        } else {
            nonDefault.put(connection.id(), name);
        }
        recompute();
    }

    void forget(Connection connection) {
        if (nonDefault.remove(connection.id()) != null) {
            recompute();
        }
    }

    /** Redis's NOPERM refusal of {@code effective} for the connection's user, or null if it may run. */
    String refusal(Connection connection, CommandSpec effective, byte[][] args) {
        if (!restricted || effective.allowedBeforeAuth()) {
            return null;
        }
        AclUser user = users.get(userName(connection));
        return user == null ? "NOPERM this user has no permissions to run the '" + effective.name() + "' command"
                : refusal(user, effective, args);
    }

    static String refusal(AclUser user, CommandSpec effective, byte[][] args) {
        if (!user.allowsCommand(effective)) {
            return "NOPERM this user has no permissions to run the '" + effective.name() + "' command";
        }
        if (!user.allowsAllKeys()) {
            List<Integer> positions;
            try {
                positions = effective.keyPositions(args);
            } catch (RuntimeException malformed) {
                return null; // the command reports its own argument error
            }
            for (int i : positions) {
                if (!user.allowsKey(args[i], effective.isWrite())) {
                    return "NOPERM this user has no permissions to access one of the keys used as arguments";
                }
            }
        }
        int firstChannel = switch (effective.name()) {
            case "publish", "spublish", "subscribe", "ssubscribe", "psubscribe" -> 1;
            default -> 0;
        };
        if (firstChannel > 0 && !user.channels.contains("*")) {
            boolean publish = effective.name().endsWith("publish");
            int last = publish ? 1 : args.length - 1;
            for (int i = firstChannel; i <= last && i < args.length; i++) {
                if (!user.allowsChannel(args[i], effective.name().equals("psubscribe"))) {
                    return "NOPERM this user has no permissions to access one of the channels used as arguments";
                }
            }
        }
        return null;
    }
}
