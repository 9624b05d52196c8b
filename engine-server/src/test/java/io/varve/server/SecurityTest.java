package io.varve.server;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AUTH, the limits that apply before it, and protected mode. */
class SecurityTest {

    @TempDir
    Path dir;

    private TestServer withPassword() throws Exception {
        return TestServer.start(dir, c -> c.with("requirepass", "s3cret"));
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void lettuceAuthenticatesOverBothProtocols(ProtocolVersion p) throws Exception {
        try (TestServer server = withPassword()) {
            RedisURI good = Lettuce.uri(server.port()).withPassword("s3cret".toCharArray()).build();
            try (Lettuce l = Lettuce.connect(good, p)) {
                assertEquals("OK", l.sync().set("k", "v"));
                assertEquals("v", l.sync().get("k"));
            }
            RedisURI bad = Lettuce.uri(server.port()).withPassword("wrong".toCharArray()).build();
            assertThrows(RedisConnectionException.class, () -> Lettuce.connect(bad, p).close());
        }
    }

    @Test
    void commandsNeedAuthentication() throws Exception {
        try (TestServer server = withPassword(); RespClient c = RespClient.connect(server.port())) {
            assertEquals(new RespClient.Err("NOAUTH Authentication required."), c.call("GET", "k"));
            assertEquals(new RespClient.Err("WRONGPASS invalid username-password pair or user is disabled."),
                    c.call("AUTH", "nope"));
            assertEquals(new RespClient.Err("WRONGPASS invalid username-password pair or user is disabled."),
                    c.call("AUTH", "admin", "s3cret"));
            Object hello = c.call("HELLO", "3");
            assertTrue(hello instanceof RespClient.Err e && e.text().startsWith("NOAUTH HELLO must be called"), hello.toString());
            assertEquals("OK", c.call("AUTH", "s3cret"));
            assertEquals("PONG", c.call("PING"));
        }
        try (TestServer server = withPassword(); RespClient c = RespClient.connect(server.port())) {
            Map<?, ?> hello = assertInstanceOf(Map.class, c.call("HELLO", "3", "AUTH", "default", "s3cret"));
            assertEquals(3L, hello.get("proto"));
            assertEquals("PONG", c.call("PING"));
        }
    }

    @Test
    void beforeAuthenticationLargeRequestsAreRefusedAtTheirHeader() throws Exception {
        try (TestServer server = withPassword()) {
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("*11\r\n"); // only the header: refused before any argument arrives
                assertEquals(new RespClient.Err("ERR Protocol error: unauthenticated multibulk length"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("*2\r\n$4\r\nAUTH\r\n$16385\r\n");
                assertEquals(new RespClient.Err("ERR Protocol error: unauthenticated bulk length"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                c.sendRaw("A".repeat(17 << 10)); // an inline line with no end in sight
                assertEquals(new RespClient.Err("ERR Protocol error: too big inline request"), c.read());
                assertTrue(c.closedByServer());
            }
            try (RespClient c = RespClient.connect(server.port())) {
                // AUTH and a large command pipelined together: the second is judged after AUTH took effect.
                String big = "x".repeat(100_000);
                byte[] auth = RespClient.encode("AUTH", "s3cret");
                byte[] set = RespClient.encode("SET", "big", big);
                byte[] both = new byte[auth.length + set.length];
                System.arraycopy(auth, 0, both, 0, auth.length);
                System.arraycopy(set, 0, both, auth.length, set.length);
                c.sendRaw(both);
                assertEquals("OK", c.read());
                assertEquals("OK", c.read());
                assertEquals(big, c.call("GET", "big"));
            }
        }
    }

    @Test
    void protectedModeRefusesRemoteClientsWithoutPassword() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c, address -> false);
             RespClient c = RespClient.connect(server.port())) {
            Object reply = c.read();
            assertTrue(reply instanceof RespClient.Err e
                    && e.text().startsWith("DENIED Redis is running in protected mode because protected mode is enabled"),
                    String.valueOf(reply));
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void protectedModeLetsRemoteClientsInWithPasswordOrWhenDisabled() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("requirepass", "pw"), address -> false);
             RespClient c = RespClient.connect(server.port())) {
            assertEquals(new RespClient.Err("NOAUTH Authentication required."), c.call("PING"));
            assertEquals("OK", c.call("AUTH", "pw"));
        }
        try (TestServer server = TestServer.start(dir, c -> c.with("protected-mode", "no"), address -> false);
             RespClient c = RespClient.connect(server.port())) {
            assertEquals("PONG", c.call("PING"));
        }
    }
}
