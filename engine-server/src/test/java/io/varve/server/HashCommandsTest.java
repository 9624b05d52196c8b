package io.varve.server;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hash commands through Lettuce, over RESP2 (flat arrays) and RESP3 (maps). */
class HashCommandsTest extends OneServerPerClass {



    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void setGetDelete(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertTrue(r.hset("h", "a", "1"));
            assertFalse(r.hset("h", "a", "2"), "updating a field adds none");
            Map<String, String> more = new LinkedHashMap<>();
            more.put("b", "3");
            more.put("c", "4");
            assertEquals(2, r.hset("h", more));
            assertEquals("2", r.hget("h", "a"));
            assertNull(r.hget("h", "zz"));
            assertNull(r.hget("nokey", "a"));
            assertEquals(3, r.hlen("h"));
            assertTrue(r.hexists("h", "b"));
            assertFalse(r.hexists("h", "zz"));
            var values = r.hmget("h", "a", "zz", "c");
            assertEquals("2", values.get(0).getValue());
            assertFalse(values.get(1).hasValue());
            assertEquals("4", values.get(2).getValue());
            assertEquals(Map.of("a", "2", "b", "3", "c", "4"), r.hgetall("h"));
            assertEquals(List.of("a", "b", "c"), r.hkeys("h"));
            assertEquals(List.of("2", "3", "4"), r.hvals("h"));
            assertEquals(2, r.hdel("h", "a", "b", "a", "nope"));
            assertEquals(1, r.hlen("h"));
            assertEquals(1, r.hdel("h", "c"));
            assertEquals(0, r.exists("h"), "a hash whose last field goes is deleted");
            assertEquals(Map.of(), r.hgetall("h"));
            assertTrue(r.hsetnx("n", "f", "1"));
            assertFalse(r.hsetnx("n", "f", "2"));
            assertEquals("1", r.hget("n", "f"));
            r.set("s", "str");
            var e = assertThrows(RedisCommandExecutionException.class, () -> r.hset("s", "f", "v"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            assertThrows(RedisCommandExecutionException.class, () -> r.hgetall("s"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void deleteIsConstantTimeAndOldFieldsStayHidden(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            Map<String, String> fields = new HashMap<>();
            for (int i = 0; i < 500; i++) {
                fields.put("f" + i, "v" + i);
            }
            r.hset("big", fields);
            assertEquals(500, r.hlen("big"));
            assertEquals(1, r.del("big"));
            r.hset("big", "fresh", "1");
            assertEquals(Map.of("fresh", "1"), r.hgetall("big"));
            assertEquals(1, r.hlen("big"));
            r.set("big", "now a string");
            r.del("big");
            r.hset("big", "again", "2");
            assertEquals(List.of("again"), r.hkeys("big"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void increments(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(5, r.hincrby("c", "n", 5));
            assertEquals(2, r.hincrby("c", "n", -3));
            assertEquals(1, r.hlen("c"));
            assertEquals(2.5, r.hincrbyfloat("c", "x", 2.5));
            r.hset("c", "t", "text");
            var e = assertThrows(RedisCommandExecutionException.class, () -> r.hincrby("c", "t", 1));
            assertEquals("ERR hash value is not an integer", e.getMessage());
            r.hset("c", "max", Long.toString(Long.MAX_VALUE));
            e = assertThrows(RedisCommandExecutionException.class, () -> r.hincrby("c", "max", 1));
            assertEquals("ERR increment or decrement would overflow", e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void hscanVisitsEveryFieldOnce(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            Map<String, String> fields = new HashMap<>();
            for (int i = 0; i < 95; i++) {
                fields.put("field:" + i, "v" + i);
            }
            fields.put("other", "o");
            r.hset("h", fields);
            Map<String, String> seen = new HashMap<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            int calls = 0;
            do {
                MapScanCursor<String, String> page = r.hscan("h", cursor, ScanArgs.Builder.limit(7));
                for (var entry : page.getMap().entrySet()) {
                    assertNull(seen.put(entry.getKey(), entry.getValue()), "returned twice: " + entry.getKey());
                }
                cursor = page;
                assertTrue(++calls < 100);
            } while (!cursor.isFinished());
            assertEquals(fields, seen);
            MapScanCursor<String, String> matched = r.hscan("h", ScanCursor.INITIAL,
                    ScanArgs.Builder.matches("oth*").limit(1000));
            assertEquals(Map.of("other", "o"), matched.getMap());
            assertTrue(matched.isFinished());
            assertTrue(r.hscan("missing", ScanCursor.INITIAL).isFinished());
        }
    }
}
