package io.varve.server;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import io.varve.base.LoopbackPorts;
import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server process for comparing answers with Varve's (tests are skipped where none is installed). It
 * runs without persistence in a directory of its own, on a port free when it was chosen; {@link #close} kills
 * it. Readiness is its own "Ready to accept connections" log line, not a timed wait.
 */
final class RealRedis implements AutoCloseable {

    private static final Path BINARY = Path.of("/usr/bin/redis-server");

    private final Process process;
    private final int port;

    private RealRedis(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts one, or skips the calling test when redis-server is not installed. */
    static RealRedis start(Path dir) throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(BINARY), "redis-server is not installed");
        int port = LoopbackPorts.next();
        Process process = new ProcessBuilder(BINARY.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--loglevel", "notice")
                .redirectErrorStream(true).start();
        RealRedis redis = new RealRedis(process, port);
        BufferedReader log = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = log.readLine()) != null) {
                if (line.contains("Ready to accept connections")) {
                    // Keep draining its output so a full pipe never stalls it.
                    Thread drain = new Thread(() -> drain(log), "redis-server-log");
                    drain.setDaemon(true);
                    drain.start();
                    return redis;
                }
            }
        } catch (IOException | RuntimeException e) {
            redis.close();
            throw e;
        }
        redis.close();
        throw new IOException("redis-server exited before it was ready");
    }

    private static void drain(BufferedReader log) {
        try {
            while (log.readLine() != null) {
                continue;
            }
        } catch (IOException closedWithTheProcess) {
            return;
        }
    }

    int port() {
        return port;
    }

    /** A binary-safe connection to {@code port} (Varve's or redis-server's). */
    record Binary(RedisClient client, StatefulRedisConnection<byte[], byte[]> connection) implements AutoCloseable {
        static Binary connect(int port) {
            RedisClient client = Lettuce.client(Lettuce.uri(port).build(), ProtocolVersion.RESP2);
            return new Binary(client, client.connect(ByteArrayCodec.INSTANCE));
        }

        io.lettuce.core.api.sync.RedisCommands<byte[], byte[]> sync() {
            return connection.sync();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
