package io.varve.server;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connection and server commands: PING, ECHO, HELLO, SELECT, CLIENT, COMMAND, INFO, CONFIG, DBSIZE, FLUSH*. */
class ConnectionAndServerCommandsTest extends OneServerPerClass {


    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void connectionCommands(ProtocolVersion p) {
        try (Lettuce l = Lettuce.connect(server.port(), p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals("PONG", r.ping());
            assertEquals("hi there", r.echo("hi there"));
            assertEquals("OK", r.select(0));
            var e = assertThrows(RedisCommandExecutionException.class, () -> r.select(16));
            assertEquals("ERR DB index is out of range", e.getMessage());
            assertNull(r.clientGetname());
            assertEquals("OK", r.clientSetname("tester"));
            assertEquals("tester", r.clientGetname());
            long id = r.clientId();
            assertTrue(id > 0);
            String list = r.clientList();
            String mine = list.lines().filter(line -> line.startsWith("id=" + id + " ")).findFirst().orElseThrow();
            assertTrue(mine.contains(" name=tester "), mine);
            assertTrue(mine.contains(" resp=" + (p == ProtocolVersion.RESP3 ? 3 : 2)), "protocol seen by server: " + mine);
            e = assertThrows(RedisCommandExecutionException.class, () -> r.clientSetname("with space"));
            assertEquals("ERR Client names cannot contain spaces, newlines or special characters.", e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void serverCommands(ProtocolVersion p) {
        try (Lettuce l = Lettuce.connect(server.port(), p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals("OK", r.flushall());
            assertEquals(0, r.dbsize());
            r.set("a", "1");
            r.hset("b", "f", "v");
            r.setex("c", 100, "x");
            assertEquals(3, r.dbsize());
            String info = r.info();
            for (String section : List.of("# Server", "# Clients", "# Memory", "# Persistence", "# Stats",
                    "# Keyspace", "# Varve")) {
                assertTrue(info.contains(section + "\r\n"), "INFO lacks " + section);
            }
            assertTrue(info.contains("db0:keys=3,expires=1,avg_ttl=100000"), info); // the test clock stands still
            assertTrue(info.contains("connected_clients:"), info);
            assertTrue(info.contains("engine_last_sequence:"), info);
            String only = r.info("keyspace");
            assertTrue(only.startsWith("# Keyspace\r\n") && !only.contains("# Server"), only);
            Map<String, String> config = r.configGet("maxclients");
            assertEquals(Map.of("maxclients", "10000"), config);
            Map<String, String> several = r.configGet("*max*");
            assertTrue(several.containsKey("proto-max-bulk-len") && several.containsKey("maxclients"), several.toString());
            assertThrows(RedisCommandExecutionException.class, () -> r.configSet("port", "5"), "immutable");
            assertTrue(r.commandCount() > 60);
            assertEquals("OK", r.flushdb());
            assertEquals(0, r.dbsize());
            assertNull(r.get("a"));
            assertEquals(0, r.hlen("b"));
        }
    }

    @Test
    void commandListingHasRedisShape() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            List<?> all = (List<?>) c.call("COMMAND");
            assertTrue(all.size() > 60);
            List<?> info = (List<?>) c.call("COMMAND", "INFO", "get", "nosuch");
            List<?> get = (List<?>) info.get(0);
            assertEquals(List.of("get", 2L), get.subList(0, 2));
            assertEquals(List.of(1L, 1L, 1L), get.subList(3, 6));
            assertNull(info.get(1));
            assertEquals(List.of("get", List.of("group", "string")), c.call("COMMAND", "DOCS", "get"));
        }
    }

    @Test
    void helloSwitchesProtocolAndRepliesWithAMap() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            List<?> hello2 = (List<?>) c.call("HELLO", "2");
            assertEquals("server", hello2.get(0));
            assertEquals(2L, hello2.get(5));
            Object hello3 = c.call("HELLO", "3", "SETNAME", "resp3-client");
            Map<?, ?> map = assertInstanceOf(Map.class, hello3);
            assertEquals(3L, map.get("proto"));
            assertEquals("standalone", map.get("mode"));
            assertEquals(RespClient.NULL, c.call("GET", "missing"), "RESP3 null");
            assertEquals("resp3-client", c.call("CLIENT", "GETNAME"));
            assertEquals(new RespClient.Err("NOPROTO unsupported protocol version"), c.call("HELLO", "4"));
            c.call("HSET", "hello-hash", "f", "v");
            assertEquals(Map.of("f", "v"), c.call("HGETALL", "hello-hash"));
            assertEquals(2.5, c.call("INCRBYFLOAT", "hello-float", "2.5") instanceof String s ? Double.parseDouble(s) : -1);
            c.call("HELLO", "2");
            assertNull(c.call("GET", "missing"), "RESP2 null bulk");
            assertEquals(List.of("f", "v"), c.call("HGETALL", "hello-hash"));
        }
    }

    @Test
    void quitRepliesThenCloses() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("QUIT"));
            assertTrue(c.closedByServer());
        }
    }
}
