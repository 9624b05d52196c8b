package io.varve.server.command;

/** MONITOR: the connection receives a line for every command the server executes ({@link Monitors}). */
final class MonitorCommand {

    private MonitorCommand() {
    }

    static void register(CommandTable.Builder b) {
        b.add("monitor", 1, "admin noscript loading stale", (CoordinatedHandler) (c, d) -> {
            d.monitors().add(c.connection());
            c.reply().ok();
        });
    }
}
