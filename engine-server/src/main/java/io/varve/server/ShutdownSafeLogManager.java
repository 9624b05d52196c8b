package io.varve.server;

import java.util.logging.LogManager;

/**
 * The java.util.logging manager {@code bin/varve} installs. The JDK's own shutdown hook resets logging
 * (closing every handler) while other shutdown hooks still run, so the server's last lines on SIGTERM —
 * "database flushed and closed" — would be dropped. This manager ignores resets once the JVM is shutting
 * down; the console handler flushes each record as it is written, so nothing is lost by not closing it.
 */
public final class ShutdownSafeLogManager extends LogManager {

    @Override
    public void reset() {
        if (!jvmShuttingDown()) {
            super.reset();
        }
    }

    /** The JVM refuses new shutdown hooks once shutdown has begun: that is the only public signal of it. */
    private static boolean jvmShuttingDown() {
        try {
            Thread probe = new Thread(() -> { });
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException shutdownInProgress) {
            return true;
        }
    }
}
