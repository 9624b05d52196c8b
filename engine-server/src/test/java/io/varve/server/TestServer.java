package io.varve.server;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A server on a loopback port chosen by the OS, over a test's temporary directory, with a clock the test
 * moves by hand (expiry is tested by advancing it, never by sleeping).
 */
final class TestServer implements AutoCloseable {

    final RedisServer server;
    final AtomicLong clock;
    final Path dir;

    private TestServer(RedisServer server, AtomicLong clock, Path dir) {
        this.server = server;
        this.clock = clock;
        this.dir = dir;
    }

    static TestServer start(Path dir) throws IOException {
        return start(dir, c -> c, InetAddress::isLoopbackAddress);
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

    int port() {
        return server.port();
    }

    void advance(Duration d) {
        clock.addAndGet(d.toMillis());
    }

    @Override
    public void close() {
        server.close();
    }
}
