package io.varve.server.apps;

import io.varve.server.RedisServer;
import io.varve.server.ServerConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A Varve server in this JVM on a loopback port the OS picks, over a test's temporary directory, with an expiry
 * clock the test moves by hand: a key's TTL runs out when the test advances the clock, never by waiting.
 */
final class InProcessVarve implements AutoCloseable {

    private final RedisServer server;
    private final AtomicLong clock;

    private InProcessVarve(RedisServer server, AtomicLong clock) {
        this.server = server;
        this.clock = clock;
    }

    static InProcessVarve start(Path dir) throws IOException {
        AtomicLong clock = new AtomicLong(System.currentTimeMillis());
        return start(dir, clock, clock::get);
    }

    /**
     * A server on the wall clock, for clients that count on the server's time passing as theirs does (BullMQ's
     * rate limiter waits for a key's PTTL to run out); {@link #advance} has no effect on it.
     */
    static InProcessVarve startOnWallClock(Path dir) throws IOException {
        return start(dir, new AtomicLong(), System::currentTimeMillis);
    }

    private static InProcessVarve start(Path dir, AtomicLong clock, LongSupplier millis) throws IOException {
        ServerConfig config = ServerConfig.defaultConfig()
                .with("port", "0")
                .with("dir", dir.toString())
                .with("io-threads", "1")
                .with("write-buffer-size", "4mb");
        RedisServer server = RedisServer.builder(config).clock(millis).build().start();
        return new InProcessVarve(server, clock);
    }

    int port() {
        return server.port();
    }

    /** Moves the server's clock, so keys whose TTL falls within {@code d} expire. */
    void advance(Duration d) {
        clock.addAndGet(d.toMillis());
    }

    @Override
    public void close() {
        server.close();
    }
}
