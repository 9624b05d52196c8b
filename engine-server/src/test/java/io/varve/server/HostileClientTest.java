package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Requests built to exhaust the server's memory are refused, and the other clients keep being answered. */
class HostileClientTest {

    private static final byte[] EMPTY_ARGUMENT = "$0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @Test
    void millionsOfEmptyArgumentsAreRefused() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("client-query-buffer-limit", "1mb"));
             RespClient hostile = RespClient.connect(server.port());
             RespClient bystander = RespClient.connect(server.port())) {
            hostile.sendRaw("*5000000\r\n");
            sendEmptyArguments(hostile, 100_000);
            assertEquals(new RespClient.Err("ERR Protocol error: invalid multibulk length"), hostile.read());
            assertTrue(hostile.closedByServer());
            assertEquals("PONG", bystander.call("PING"));
        }
    }

    @Test
    void emptyArgumentsFillTheQueryBufferAtTheirHeapCost() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("client-query-buffer-limit", "1mb"));
             RespClient hostile = RespClient.connect(server.port());
             RespClient bystander = RespClient.connect(server.port())) {
            // 30000 arguments fit the limit when empty (a reference each); 30000 arguments of 16 bytes, a
            // 32-byte array and a reference each, hold more than 1 MiB on the heap and do not.
            hostile.sendRaw("*30000\r\n");
            byte[] sixteen = "$16\r\nxxxxxxxxxxxxxxxx\r\n".getBytes(StandardCharsets.US_ASCII);
            byte[] chunk = new byte[sixteen.length * 1000];
            for (int i = 0; i < 1000; i++) {
                System.arraycopy(sixteen, 0, chunk, i * sixteen.length, sixteen.length);
            }
            try {
                for (int i = 0; i < 30; i++) {
                    hostile.sendRaw(chunk);
                }
            } catch (IOException closedWhileSending) {
                // the server may close before all of it is sent; its reply is already on the way
            }
            assertEquals(new RespClient.Err("ERR Protocol error: query buffer limit exceeded"), hostile.read());
            assertTrue(hostile.closedByServer());
            assertEquals("PONG", bystander.call("PING"));
        }
    }

    @Test
    void nestedArraysAreRefusedAndNegativeCountsSkipped() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("*1\r\n*1\r\n$4\r\nPING\r\n");
                assertEquals(new RespClient.Err("ERR Protocol error: expected '$', got '*'"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("*-7\r\n");
                assertEquals("PONG", c.call("PING"), "as in Redis, a negative count is no command at all");
            }
            try (RespClient c = RespClient.connect(server.port())) {
                assertEquals("PONG", c.call("PING"));
            }
        }
    }

    @Test
    void unauthenticatedLimitsStillHold() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("requirepass", "s3cret"))) {
            String big = "v".repeat(16 << 10);
            try (RespClient c = RespClient.connect(server.port())) {
                assertEquals(new RespClient.Err("NOAUTH Authentication required."),
                        c.call("SET", "k", big, big, big, big, big, big, big, big));
                c.sendRaw("*11\r\n");
                assertEquals(new RespClient.Err("ERR Protocol error: unauthenticated multibulk length"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("*2\r\n$3\r\nGET\r\n$" + ((16 << 10) + 1) + "\r\n");
                assertEquals(new RespClient.Err("ERR Protocol error: unauthenticated bulk length"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("*5000000\r\n");
                assertEquals(new RespClient.Err("ERR Protocol error: unauthenticated multibulk length"), c.read());
                assertTrue(c.closedByServer());
            }
        }
    }

    private static void sendEmptyArguments(RespClient client, int count) throws IOException {
        byte[] chunk = new byte[EMPTY_ARGUMENT.length * 1000];
        for (int i = 0; i < 1000; i++) {
            System.arraycopy(EMPTY_ARGUMENT, 0, chunk, i * EMPTY_ARGUMENT.length, EMPTY_ARGUMENT.length);
        }
        try {
            for (int sent = 0; sent < count; sent += 1000) {
                client.sendRaw(chunk);
            }
        } catch (IOException closedWhileSending) {
            // the server refused the header and closed; the refusal is read next
        }
    }
}
