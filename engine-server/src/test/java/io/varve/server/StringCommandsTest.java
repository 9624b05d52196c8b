package io.varve.server;

import io.lettuce.core.GetExArgs;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** String commands through Lettuce, over RESP2 and RESP3. */
class StringCommandsTest extends OneServerPerClass {



    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void setAndGetWithOptions(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertNull(r.get("k"));
            assertEquals("OK", r.set("k", "v1"));
            assertEquals("v1", r.get("k"));
            assertNull(r.set("k", "v2", SetArgs.Builder.nx()));
            assertEquals("v1", r.get("k"));
            assertEquals("OK", r.set("k", "v2", SetArgs.Builder.xx()));
            assertNull(r.set("missing", "x", SetArgs.Builder.xx()));
            assertEquals(0, r.exists("missing"));
            assertEquals("v2", r.setGet("k", "v3"));
            assertNull(r.setGet("fresh", "f"));
            assertEquals("OK", r.set("k", "v4", SetArgs.Builder.ex(100)));
            assertTrue(r.ttl("k") > 90);
            assertEquals("OK", r.set("k", "v5", SetArgs.Builder.keepttl()));
            assertTrue(r.pttl("k") > 90_000);
            assertEquals("OK", r.set("k", "v6"));
            assertEquals(-1, r.ttl("k"));
            assertEquals("OK", r.set("k", "v7", SetArgs.Builder.px(5000)));
            assertTrue(r.pttl("k") <= 5000 && r.pttl("k") > 0);
            long now = server.clock.get();
            assertEquals("OK", r.set("k", "v8", SetArgs.Builder.exAt(now / 1000 + 50)));
            assertTrue(r.ttl("k") > 40);
            assertEquals("OK", r.set("k", "v9", SetArgs.Builder.pxAt(now + 70_000)));
            assertTrue(r.pttl("k") > 60_000);
            RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class,
                    () -> r.set("k", "v", SetArgs.Builder.ex(0)));
            assertEquals("ERR invalid expire time in 'set' command", e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void expiredKeysAreInvisible(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.setex("e", 10, "soon gone");
            r.psetex("pe", 1500, "gone sooner");
            assertEquals("soon gone", r.get("e"));
            server.advance(Duration.ofMillis(1500));
            assertNull(r.get("pe"));
            assertEquals("soon gone", r.get("e"));
            server.advance(Duration.ofSeconds(9));
            assertNull(r.get("e"));
            assertEquals(0, r.exists("e", "pe"));
            assertEquals(-2, r.ttl("e"));
            assertTrue(r.setnx("e", "again")); // an expired key counts as absent
            assertEquals("again", r.get("e"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void getSetGetDelGetEx(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertNull(r.getset("g", "1"));
            assertEquals("1", r.getset("g", "2"));
            assertEquals("2", r.getdel("g"));
            assertNull(r.getdel("g"));
            r.set("x", "val");
            assertEquals("val", r.getex("x", GetExArgs.Builder.ex(100)));
            assertTrue(r.ttl("x") > 90);
            assertEquals("val", r.getex("x", GetExArgs.Builder.persist()));
            assertEquals(-1, r.ttl("x"));
            assertEquals("val", r.getex("x", GetExArgs.Builder.px(2000)));
            assertTrue(r.pttl("x") <= 2000);
            assertNull(r.getex("nothing", GetExArgs.Builder.ex(5)));
            assertTrue(r.setnx("nx", "a"));
            assertFalse(r.setnx("nx", "b"));
            assertEquals("a", r.get("nx"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void multiKeyCommands(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals("OK", r.mset(Map.of("a", "1", "b", "2")));
            r.hset("h", "f", "v");
            var values = r.mget("a", "b", "c", "h");
            assertEquals("1", values.get(0).getValue());
            assertEquals("2", values.get(1).getValue());
            assertFalse(values.get(2).hasValue());
            assertFalse(values.get(3).hasValue()); // MGET of a non-string is nil, not an error
            assertFalse(r.msetnx(Map.of("a", "x", "z", "y")));
            assertNull(r.get("z"));
            assertTrue(r.msetnx(Map.of("y", "1", "z", "2")));
            assertEquals("2", r.get("z"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void appendStrlenRanges(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(5, r.append("s", "Hello"));
            assertEquals(11, r.append("s", " World"));
            assertEquals(11, r.strlen("s"));
            assertEquals(0, r.strlen("nope"));
            assertEquals("Hello", r.getrange("s", 0, 4));
            assertEquals("World", r.getrange("s", -5, -1));
            assertEquals("Hello World", r.getrange("s", 0, 100));
            assertEquals("", r.getrange("s", 5, 2));
            assertEquals("", r.getrange("nope", 0, 10));
            assertEquals(11, r.setrange("s", 6, "Redis"));
            assertEquals("Hello Redis", r.get("s"));
            assertEquals(8, r.setrange("pad", 5, "abc"));
            assertEquals("\0\0\0\0\0abc", r.get("pad"));
            assertEquals(0, r.setrange("empty", 3, ""));
            assertEquals(0, r.exists("empty"));
            r.setex("ttl", 100, "a");
            r.append("ttl", "b");
            assertTrue(r.ttl("ttl") > 0, "APPEND keeps the expiry");
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void counters(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(1, r.incr("n"));
            assertEquals(11, r.incrby("n", 10));
            assertEquals(10, r.decr("n"));
            assertEquals(-5, r.decrby("n", 15));
            assertEquals(10.5, r.incrbyfloat("f", 10.5));
            assertEquals("10.5", r.get("f"));
            assertEquals(10.6, r.incrbyfloat("f", 0.1), 1e-9);
            assertEquals("10.6", r.get("f"));
            r.set("whole", "3");
            r.incrbyfloat("whole", 2.0);
            assertEquals("5", r.get("whole"));
            r.set("text", "abc");
            var e = assertThrows(RedisCommandExecutionException.class, () -> r.incr("text"));
            assertEquals("ERR value is not an integer or out of range", e.getMessage());
            r.set("max", Long.toString(Long.MAX_VALUE));
            e = assertThrows(RedisCommandExecutionException.class, () -> r.incr("max"));
            assertEquals("ERR increment or decrement would overflow", e.getMessage());
            r.set("lead", "007");
            assertThrows(RedisCommandExecutionException.class, () -> r.incr("lead"));
            e = assertThrows(RedisCommandExecutionException.class, () -> r.incrbyfloat("text", 1));
            assertEquals("ERR value is not a valid float", e.getMessage());
            r.hset("h", "f", "1");
            e = assertThrows(RedisCommandExecutionException.class, () -> r.incr("h"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
        }
    }
}
