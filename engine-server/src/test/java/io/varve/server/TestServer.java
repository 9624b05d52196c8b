package io.varve.server;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A server in the test's JVM on a loopback port chosen by the OS, over a test's temporary directory, with a clock
 * the test moves by hand (expiry is tested by advancing it, never by sleeping). Public for the tests that run
 * client libraries against it ({@code io.varve.server.apps}).
 */
public final class TestServer implements AutoCloseable {

    final RedisServer server;
    final AtomicLong clock;
    final Path dir;

    private TestServer(RedisServer server, AtomicLong clock, Path dir) {
        this.server = server;
        this.clock = clock;
        this.dir = dir;
    }

    public static TestServer start(Path dir) throws IOException {
        return start(dir, c -> c, InetAddress::isLoopbackAddress);
    }

    /**
     * A server on the wall clock, for clients that count on the server's time passing as theirs does (BullMQ's
     * rate limiter waits for a key's PTTL to run out); {@link #advance} has no effect on it.
     */
    public static TestServer startOnWallClock(Path dir) throws IOException {
        return start(dir, c -> c, InetAddress::isLoopbackAddress, new AtomicLong(),
                b -> b.clock(System::currentTimeMillis));
    }

    static TestServer start(Path dir, UnaryOperator<ServerConfig> tweak) throws IOException {
        return start(dir, tweak, InetAddress::isLoopbackAddress);
    }

    static TestServer start(Path dir, UnaryOperator<ServerConfig> tweak, Predicate<InetAddress> loopback)
            throws IOException {
        return start(dir, tweak, loopback, new AtomicLong(System.currentTimeMillis()));
    }

    static TestServer start(Path dir, UnaryOperator<ServerConfig> tweak, Predicate<InetAddress> loopback,
                            AtomicLong clock) throws IOException {
        return start(dir, tweak, loopback, clock, b -> b);
    }

    static TestServer start(Path dir, UnaryOperator<ServerConfig> tweak, Predicate<InetAddress> loopback,
                            AtomicLong clock, UnaryOperator<RedisServer.Builder> build) throws IOException {
        ServerConfig config = tweak.apply(ServerConfig.defaultConfig()
                .with("port", "0")
                .with("dir", dir.toString())
                .with("io-threads", "1")
                .with("write-buffer-size", "4mb"));
        RedisServer server = build.apply(RedisServer.builder(config).clock(clock::get).loopbackPredicate(loopback))
                .build().start();
        return new TestServer(server, clock, dir);
    }

    public int port() {
        return server.port();
    }

    /** Moves the server's clock, so keys whose TTL falls within {@code d} expire. */
    public void advance(Duration d) {
        clock.addAndGet(d.toMillis());
    }

    @Override
    public void close() {
        server.close();
    }
}
