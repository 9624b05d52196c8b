package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Limits after authentication: argument size, query buffer, client count, idle timeout. */
class LimitsTest {

    @TempDir
    Path dir;

    @Test
    void bulkLongerThanProtoMaxBulkLenIsRefused() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("proto-max-bulk-len", "2kb"))) {
            try (RespClient c = RespClient.connect(server.port())) {
                assertEquals("OK", c.call("SET", "k", "x".repeat(2048)));
                assertEquals(new RespClient.Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
                        c.call("APPEND", "k", "y"));
                assertEquals(new RespClient.Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
                        c.call("SETRANGE", "k", "4000", "y"));
                c.sendRaw("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2049\r\n");
                assertEquals(new RespClient.Err("ERR Protocol error: invalid bulk length"), c.read());
                assertTrue(c.closedByServer());
            }
        }
    }

    @Test
    void queryBufferLimitCapsOneCommand() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("client-query-buffer-limit", "1mb"))) {
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("*2\r\n$4\r\nECHO\r\n$2000000\r\n");
                assertEquals(new RespClient.Err("ERR Protocol error: query buffer limit exceeded"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                String chunk = "z".repeat(400_000);
                c.sendRaw(RespClient.encode("MSET", "a", chunk, "b", chunk, "c", chunk));
                assertEquals(new RespClient.Err("ERR Protocol error: query buffer limit exceeded"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                assertEquals("PONG", c.call("PING"), "other clients are unaffected");
            }
        }
    }

    @Test
    void maxClientsRefusesTheOneTooMany() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("maxclients", "2"))) {
            try (RespClient a = RespClient.connect(server.port()); RespClient b = RespClient.connect(server.port())) {
                assertEquals("PONG", a.call("PING"));
                assertEquals("PONG", b.call("PING"));
                try (RespClient c = RespClient.connect(server.port())) {
                    assertEquals(new RespClient.Err("ERR max number of clients reached"), c.read());
                    assertTrue(c.closedByServer());
                }
            }
            // Both closed: a new client gets in once the server has seen the closes (the deadline only
            // detects a hang).
            long deadline = System.nanoTime() + 60_000_000_000L;
            Object reply = null;
            while (System.nanoTime() < deadline) {
                try (RespClient c = RespClient.connect(server.port())) {
                    reply = c.call("PING");
                    if ("PONG".equals(reply)) {
                        break;
                    }
                } catch (IOException refusedAndClosed) {
                    reply = refusedAndClosed;
                }
            }
            assertEquals("PONG", reply);
        }
    }

    @Test
    void idleClientsAreClosedAfterTimeout() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("timeout", "1"));
             RespClient c = RespClient.connect(server.port())) {
            // Taken before the PING: the server's idle clock starts when the PING arrives, later than this,
            // so however slow the machine the close comes at least the timeout after t0.
            long t0 = System.nanoTime();
            assertEquals("PONG", c.call("PING"));
            assertTrue(c.closedByServer());
            assertTrue(System.nanoTime() - t0 >= 500_000_000L, "closed only after being idle");
        }
    }
}
