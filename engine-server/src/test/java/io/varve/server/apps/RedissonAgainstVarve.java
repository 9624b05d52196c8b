package io.varve.server.apps;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.varve.server.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.Protocol;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One Varve server per test class and two Redisson clients on it (two clients are two lock owners, two
 * semaphore holders), plus a plain Lettuce connection to look at what Redisson left on the server.
 * Redisson runs with its stock configuration except for small thread pools and the string codec (so values
 * stay readable through the plain connection); its objects' Lua scripts, pub/sub and reply parsing are its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedissonAgainstVarve {

    /** A lease no test outlives, for locks whose expiry a test does not look at. */
    static final Duration LONG_LEASE = Duration.ofMinutes(5);

    TestServer server;
    RedissonClient first;
    RedissonClient second;
    private RedisClient plainClient;
    private StatefulRedisConnection<String, String> plainConnection;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        server = TestServer.start(dir);
        first = connect(server.port(), protocol());
        second = connect(server.port(), protocol());
        plainClient = RedisClient.create("redis://127.0.0.1:" + server.port());
        plainConnection = plainClient.connect();
    }

    @AfterAll
    void stop() {
        if (first != null) first.shutdown(0, 5, TimeUnit.SECONDS);
        if (second != null) second.shutdown(0, 5, TimeUnit.SECONDS);
        if (plainConnection != null) plainConnection.close();
        if (plainClient != null) plainClient.shutdown(0, 1, TimeUnit.SECONDS);
        if (server != null) server.close();
    }

    @BeforeEach
    void emptyDatabase() {
        plain().flushall();
    }

    RedisCommands<String, String> plain() {
        return plainConnection.sync();
    }

    /** The protocol Redisson speaks; RESP2 unless a test class says otherwise. */
    Protocol protocol() {
        return Protocol.RESP2;
    }

    /** INFO's blocked_clients: how many commands wait in a blocking read (BLPOP, XREADGROUP BLOCK, ...) now. */
    long blockedClients() {
        return plain().info("clients").lines()
                .filter(l -> l.startsWith("blocked_clients:"))
                .mapToLong(l -> Long.parseLong(l.substring("blocked_clients:".length()).trim()))
                .findFirst().orElseThrow();
    }

    static RedissonClient connect(int port, Protocol protocol) {
        Config config = new Config();
        config.setProtocol(protocol);
        config.setCodec(StringCodec.INSTANCE);
        config.setThreads(2);
        config.setNettyThreads(2);
        config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + port)
                .setConnectionPoolSize(4)
                .setConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setTimeout(10_000);
        return Redisson.create(config);
    }

    /**
     * Waits until {@code condition} holds, such as a client having subscribed to a channel, so a test acts
     * only once the other side is in the state it means to test. The deadline only bounds a hang.
     */
    static void awaitUntil(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting until " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
