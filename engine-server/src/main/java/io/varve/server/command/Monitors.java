package io.varve.server.command;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * The connections that ran MONITOR, and the line each executed command sends them:
 * {@code +<seconds>.<micros> [<db> <address>] "command" "arg" ...}, as Redis writes it. Commands flagged admin or
 * skip_monitor are not shown, and passwords are redacted. While anyone monitors, every command goes the
 * dispatcher's way (the event-loop shortcuts step aside), so none is missed. Any thread.
 */
public final class Monitors {

    private final Set<Connection> watching = new CopyOnWriteArraySet<>();
    /** Set on the thread running a script while it runs: its commands show as "lua" rather than the client. */
    private static final ThreadLocal<Boolean> IN_SCRIPT = new ThreadLocal<>();

    boolean active() {
        return !watching.isEmpty();
    }

    void add(Connection connection) {
        watching.add(connection);
    }

    /** RESET or a closed connection: it monitors no more. */
    void remove(Connection connection) {
        watching.remove(connection);
    }

    /** Sends the line of an executed command to every monitor. */
    void executed(CommandSpec spec, Connection connection, byte[][] args) {
        if (watching.isEmpty() || spec.has(CommandFlag.ADMIN) || spec.has(CommandFlag.SKIP_MONITOR)) {
            return;
        }
        send(connection, args);
    }

    /**
     * Runs a script (EVAL, FCALL: flagged skip_monitor, so not shown when they end) as Redis shows one: its own
     * line first, then the commands it calls, each marked {@code lua} where a command shows its client.
     */
    void script(Connection connection, byte[][] args, Runnable body) {
        if (watching.isEmpty()) {
            body.run();
            return;
        }
        send(connection, args);
        Boolean outer = IN_SCRIPT.get();
        IN_SCRIPT.set(Boolean.TRUE);
        try {
            body.run();
        } finally {
            IN_SCRIPT.set(outer);
        }
    }

    private void send(Connection connection, byte[][] args) {
        long micros = System.currentTimeMillis() * 1000 + (System.nanoTime() / 1000) % 1000;
        StringBuilder line = new StringBuilder();
        line.append(micros / 1_000_000).append('.').append(String.format("%06d", micros % 1_000_000))
                .append(" [").append(connection.database()).append(' ')
                .append(IN_SCRIPT.get() != null ? "lua" : Connection.address(connection.remote())).append(']');
        int redactFrom = redactedFrom(args);
        for (int i = 0; i < args.length; i++) {
            line.append(' ');
            if (i >= redactFrom) {
                line.append("\"(redacted)\"");
            } else {
                quote(line, args[i]);
            }
        }
        String text = line.toString();
        for (Connection monitor : watching) {
            monitor.subscriptions().sink().pushLine(text);
        }
    }

    /** Where passwords start: AUTH's arguments, HELLO's after AUTH; args.length when none. */
    private static int redactedFrom(byte[][] args) {
        if (Args.isKeyword(args[0], "auth")) {
            return 1;
        }
        if (Args.isKeyword(args[0], "hello")) {
            for (int i = 1; i < args.length; i++) {
                if (Args.isKeyword(args[i], "auth")) {
                    return i + 1;
                }
            }
        }
        return args.length;
    }

    /** The argument in double quotes with Redis's escapes (sdscatrepr). */
    private static void quote(StringBuilder out, byte[] arg) {
        out.append('"');
        for (byte b : arg) {
            int ch = b & 0xff;
            switch (ch) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case 7 -> out.append("\\a");
                case '\b' -> out.append("\\b");
                default -> {
                    if (ch >= 32 && ch < 127) {
                        out.append((char) ch);
                    } else {
                        out.append(String.format("\\x%02x", ch));
                    }
                }
            }
        }
        out.append('"');
    }
}
