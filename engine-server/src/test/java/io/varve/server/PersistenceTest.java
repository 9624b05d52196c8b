package io.varve.server;

import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Data survives a restart; SHUTDOWN stops the server cleanly; appendfsync modes all work. */
class PersistenceTest {

    @TempDir
    Path dir;

    @Test
    void dataSurvivesRestartAndDeletedHashesStayDeleted() throws Exception {
        AtomicLong clock = new AtomicLong(System.currentTimeMillis());
        try (TestServer server = TestServer.start(dir, c -> c, InetAddress::isLoopbackAddress, clock);
             Lettuce l = Lettuce.connect(server.port(), ProtocolVersion.RESP3)) {
            RedisCommands<String, String> r = l.sync();
            r.set("s", "value");
            r.setex("ttl", 1000, "short-lived");
            r.setex("gone", 1, "expires before restart");
            r.hset("h", Map.of("a", "1", "b", "2"));
            r.hset("old", Map.of("stale", "x"));
            r.del("old");
            r.incrby("counter", 41);
        }
        clock.addAndGet(Duration.ofSeconds(5).toMillis());
        try (TestServer server = TestServer.start(dir, c -> c, InetAddress::isLoopbackAddress, clock);
             Lettuce l = Lettuce.connect(server.port(), ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals("value", r.get("s"));
            assertEquals("short-lived", r.get("ttl"));
            assertTrue(r.ttl("ttl") > 900);
            assertNull(r.get("gone"));
            assertEquals(Map.of("a", "1", "b", "2"), r.hgetall("h"));
            assertEquals(42, r.incr("counter"));
            r.hset("old", "fresh", "y");
            assertEquals(List.of("fresh"), r.hkeys("old"), "a new version after restart hides the old fields");
            assertEquals(5, r.dbsize(), "s, ttl, h, counter, old");
        }
    }

    @Test
    void shutdownCommandStopsTheServerAndKeepsAcknowledgedWrites() throws Exception {
        TestServer server = TestServer.start(dir);
        try (RespClient c = RespClient.connect(server.port())) {
            // Pipelined with the SHUTDOWN: every command before it is still answered.
            java.io.ByteArrayOutputStream pipeline = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < 100; i++) {
                pipeline.writeBytes(RespClient.encode("SET", "k" + i, "v" + i));
            }
            pipeline.writeBytes(RespClient.encode("SHUTDOWN"));
            c.sendRaw(pipeline.toByteArray());
            for (int i = 0; i < 100; i++) {
                assertEquals("OK", c.read());
            }
            assertTrue(c.closedByServer(), "SHUTDOWN closes the connection without a reply");
        }
        assertTrue(server.server.awaitTermination(Duration.ofSeconds(30)), "server stopped");
        server.close();
        try (TestServer again = TestServer.start(dir); RespClient c = RespClient.connect(again.port())) {
            assertEquals("v99", c.call("GET", "k99"));
            assertEquals(100L, c.call("DBSIZE"));
        }
    }

    @Test
    void closeAnswersWhatWasReceivedAndKeepsEveryAcknowledgedWrite() throws Exception {
        TestServer server = TestServer.start(dir);
        int sent = 20_000;
        int acknowledged = 0;
        try (RespClient c = RespClient.connect(server.port())) {
            java.io.ByteArrayOutputStream pipeline = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < sent; i++) {
                pipeline.writeBytes(RespClient.encode("SET", "p" + i, "v" + i));
            }
            c.sendRaw(pipeline.toByteArray());
            assertEquals("OK", c.read());
            acknowledged = 1;
            Thread closer = Thread.ofPlatform().start(server::close); // while commands are still running
            try {
                while (acknowledged < sent) {
                    assertEquals("OK", c.read(), "replies stay whole and in order during shutdown");
                    acknowledged++;
                }
            } catch (java.io.IOException closedByShutdown) {
                // expected once the server has answered what it had received
            }
            closer.join(60_000);
            assertTrue(!closer.isAlive(), "close() finished");
        }
        try (TestServer again = TestServer.start(dir); RespClient c = RespClient.connect(again.port())) {
            for (int i = 0; i < acknowledged; i++) {
                assertEquals("v" + i, c.call("GET", "p" + i), "acknowledged write " + i + " survived");
            }
        }
    }

    @Test
    void everyFsyncModeServesReadsAndWrites() throws Exception {
        for (String mode : List.of("always", "everysec", "no")) {
            Path d = dir.resolve(mode);
            try (TestServer server = TestServer.start(d, c -> c.with("appendfsync", mode));
                 RespClient c = RespClient.connect(server.port())) {
                assertEquals("OK", c.call("SET", "mode", mode));
                assertTrue(((String) c.call("INFO", "persistence")).contains("appendfsync:" + mode));
            }
            try (TestServer server = TestServer.start(d); RespClient c = RespClient.connect(server.port())) {
                assertEquals(mode, c.call("GET", "mode"));
            }
        }
    }
}
