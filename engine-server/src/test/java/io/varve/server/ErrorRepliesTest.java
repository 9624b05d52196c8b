package io.varve.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Exact error texts (client libraries map them by their words), inline commands and malformed frames. */
class ErrorRepliesTest extends OneServerPerClass {


    private static RespClient.Err err(String text) {
        return new RespClient.Err(text);
    }

    @Test
    void errorTextsMatchRedis() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            assertEquals(err("ERR wrong number of arguments for 'get' command"), c.call("GET"));
            assertEquals(err("ERR wrong number of arguments for 'set' command"), c.call("set", "k"));
            assertEquals(err("ERR wrong number of arguments for 'mset' command"), c.call("MSET", "a", "1", "b"));
            assertEquals(err("ERR wrong number of arguments for 'hset' command"), c.call("HSET", "h", "f"));
            assertEquals(err("ERR unknown command 'foo', with args beginning with: 'a' 'b' "), c.call("foo", "a", "b"));
            assertEquals(err("ERR unknown command 'nope', with args beginning with: "), c.call("nope"));
            assertEquals(err("ERR syntax error"), c.call("SET", "k", "v", "NX", "XX"));
            assertEquals(err("ERR syntax error"), c.call("SET", "k", "v", "EX", "10", "KEEPTTL"));
            assertEquals(err("ERR syntax error"), c.call("SET", "k", "v", "EX"));
            assertEquals(err("ERR value is not an integer or out of range"), c.call("SET", "k", "v", "EX", "ten"));
            assertEquals(err("ERR value is not an integer or out of range"), c.call("INCRBY", "n", "1.5"));
            assertEquals(err("ERR value is not an integer or out of range"), c.call("EXPIRE", "k", " 10"));
            assertEquals(err("ERR invalid expire time in 'setex' command"), c.call("SETEX", "k", "-1", "v"));
            assertEquals(err("ERR invalid expire time in 'getex' command"), c.call("GETEX", "k", "PX", "0"));
            assertEquals(err("ERR invalid expire time in 'expire' command"),
                    c.call("EXPIRE", "k", Long.toString(Long.MAX_VALUE / 100)));
            assertEquals(err("ERR offset is out of range"), c.call("SETRANGE", "k", "-1", "x"));
            assertEquals(err("ERR invalid cursor"), c.call("SCAN", "abc"));
            assertEquals(err("ERR decrement would overflow"), c.call("DECRBY", "n", Long.toString(Long.MIN_VALUE)));
            c.call("HSET", "h", "f", "v");
            String wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
            assertEquals(err(wrongType), c.call("GET", "h"));
            assertEquals(err(wrongType), c.call("APPEND", "h", "x"));
            assertEquals(err(wrongType), c.call("SET", "h", "v", "GET"));
            assertEquals("hash", c.call("TYPE", "h"), "a failed SET ... GET changes nothing");
            c.call("SET", "s", "v");
            assertEquals(err(wrongType), c.call("HGET", "s", "f"));
            assertEquals(err("ERR unknown subcommand 'bogus'. Try CLIENT HELP."), c.call("CLIENT", "bogus"));
            assertEquals(err("ERR AUTH <password> called without any password configured for the default user. "
                    + "Are you sure your configuration is correct?"), c.call("AUTH", "pw"));
            assertEquals("PONG", c.call("PING"), "errors leave the connection usable");
        }
    }

    @Test
    void inlineCommandsWork() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.sendRaw("PING\r\n");
            assertEquals("PONG", c.read());
            c.sendRaw("set inline \"hello world\\n\"\r\n\r\nget inline\n");
            assertEquals("OK", c.read());
            assertEquals("hello world\n", c.read());
            c.sendRaw("set q 'it\\'s'\r\nget q\r\n");
            assertEquals("OK", c.read());
            assertEquals("it's", c.read());
            c.sendRaw("echo \"unbalanced\r\n");
            assertEquals(err("ERR Protocol error: unbalanced quotes in request"), c.read());
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void malformedFrameClosesOnlyThatConnection() throws Exception {
        try (RespClient good = RespClient.connect(server.port()); RespClient bad = RespClient.connect(server.port())) {
            good.call("SET", "survivor", "1");
            bad.sendRaw("*2\r\n$3\r\nGET\r\n$-5\r\n");
            assertEquals(err("ERR Protocol error: invalid bulk length"), bad.read());
            assertTrue(bad.closedByServer());
            assertEquals("1", good.call("GET", "survivor"));
        }
        try (RespClient bad = RespClient.connect(server.port())) {
            bad.sendRaw("*1\r\n:5\r\n");
            assertEquals(err("ERR Protocol error: expected '$', got ':'"), bad.read());
            assertTrue(bad.closedByServer());
        }
        try (RespClient bad = RespClient.connect(server.port())) {
            bad.sendRaw("*x\r\n");
            assertEquals(err("ERR Protocol error: invalid multibulk length"), bad.read());
            assertTrue(bad.closedByServer());
        }
    }

    @Test
    void repliesBeforeAProtocolErrorAreStillSent() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            byte[] good = RespClient.encode("ECHO", "first");
            byte[] garbage = "*1\r\n$abc\r\n".getBytes();
            byte[] all = new byte[good.length + garbage.length];
            System.arraycopy(good, 0, all, 0, good.length);
            System.arraycopy(garbage, 0, all, good.length, garbage.length);
            c.sendRaw(all);
            assertEquals("first", c.read());
            assertEquals(err("ERR Protocol error: invalid bulk length"), c.read());
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void emptyMultibulkIsIgnored() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.sendRaw("*0\r\n*-1\r\n");
            assertEquals(List.of("PONG"), List.of(c.call("PING")));
        }
    }
}
