package io.varve.server;

import io.lettuce.core.ExpireArgs;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Key commands through Lettuce, over RESP2 and RESP3. */
class KeyCommandsTest extends OneServerPerClass {



    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void delExistsTypeUnlink(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.set("s", "1");
            r.hset("h", "f", "v");
            assertEquals("string", r.type("s"));
            assertEquals("hash", r.type("h"));
            assertEquals("none", r.type("x"));
            assertEquals(3, r.exists("s", "h", "s", "x"), "EXISTS counts repeated keys");
            assertEquals(2, r.del("s", "h", "s", "x"), "DEL counts each removed key once");
            assertEquals(0, r.exists("s", "h"));
            r.set("u", "1");
            assertEquals(1, r.unlink("u", "nope"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void expireFamilyAndTtl(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.set("k", "v");
            assertEquals(-1, r.ttl("k"));
            assertEquals(-2, r.ttl("missing"));
            assertEquals(-2, r.pttl("missing"));
            assertFalse(r.expire("missing", 10));
            assertTrue(r.expire("k", 100));
            assertEquals(100, r.ttl("k"));
            assertTrue(r.pexpire("k", 50_000));
            assertEquals(50, r.ttl("k"));
            long now = server.clock.get();
            assertTrue(r.expireat("k", now / 1000 + 200));
            assertTrue(r.ttl("k") >= 199);
            assertTrue(r.pexpireat("k", now + 300_000));
            assertEquals(300_000, r.pttl("k"));
            assertFalse(r.expire("k", 10, ExpireArgs.Builder.nx()));
            assertTrue(r.expire("k", 10, ExpireArgs.Builder.xx()));
            assertFalse(r.expire("k", 5, ExpireArgs.Builder.gt()));
            assertTrue(r.expire("k", 20, ExpireArgs.Builder.gt()));
            assertTrue(r.expire("k", 15, ExpireArgs.Builder.lt()));
            assertTrue(r.persist("k"));
            assertFalse(r.persist("k"));
            assertEquals(-1, r.ttl("k"));
            assertTrue(r.expire("k", 0), "a non-positive expiry deletes the key");
            assertEquals(0, r.exists("k"));
            r.hset("h", "f", "v");
            r.expire("h", 5);
            server.advance(Duration.ofSeconds(6));
            assertEquals(0, r.exists("h"));
            assertEquals(0, r.hlen("h"));
            assertNull(r.hget("h", "f"));
            r.hset("h", "g", "w");
            assertEquals(List.of("g"), r.hkeys("h"), "a hash re-created after expiry has no old fields");
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void rename(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            var e = assertThrows(RedisCommandExecutionException.class, () -> r.rename("nope", "x"));
            assertEquals("ERR no such key", e.getMessage());
            r.setex("a", 100, "1");
            assertEquals("OK", r.rename("a", "b"));
            assertEquals(0, r.exists("a"));
            assertEquals("1", r.get("b"));
            assertTrue(r.ttl("b") > 90, "RENAME keeps the expiry");
            r.hset("h", "f1", "v1");
            r.hset("h", "f2", "v2");
            r.set("h2", "will be replaced");
            assertEquals("OK", r.rename("h", "h2"));
            assertEquals("hash", r.type("h2"));
            assertEquals(2, r.hlen("h2"));
            assertEquals("v2", r.hget("h2", "f2"));
            assertEquals(0, r.exists("h"));
            r.hset("h", "other", "x");
            assertEquals(List.of("other"), r.hkeys("h"), "the old key's fields do not come back");
            assertEquals("OK", r.rename("b", "b"));
            assertFalse(r.renamenx("b", "h"));
            assertTrue(r.renamenx("b", "c"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void scanAndKeys(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            Set<String> expected = new TreeSet<>();
            for (int i = 0; i < 57; i++) {
                r.set("user:" + i, "x");
                expected.add("user:" + i);
            }
            r.hset("user:h", "f", "v");
            r.set("other", "y");
            r.setex("user:expired", 1, "z");
            server.advance(Duration.ofSeconds(2));

            Set<String> seen = new HashSet<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            int calls = 0;
            do {
                KeyScanCursor<String> page = r.scan(cursor, ScanArgs.Builder.matches("user:*").limit(10));
                seen.addAll(page.getKeys());
                cursor = page;
                assertTrue(++calls < 100, "SCAN must terminate");
            } while (!cursor.isFinished());
            Set<String> withHash = new TreeSet<>(expected);
            withHash.add("user:h");
            assertEquals(withHash, new TreeSet<>(seen));

            List<String> strings = new ArrayList<>();
            cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = r.scan(cursor, KeyScanArgs.Builder.type("string").limit(1000));
                strings.addAll(page.getKeys());
                cursor = page;
            } while (!cursor.isFinished());
            assertEquals(58, strings.size(), "57 user strings and 'other'");
            assertFalse(strings.contains("user:h"));

            assertEquals(new TreeSet<>(List.of("user:1", "user:10", "user:11", "user:12", "user:13", "user:14",
                    "user:15", "user:16", "user:17", "user:18", "user:19")), new TreeSet<>(r.keys("user:1*")));
            assertEquals(List.of("other"), r.keys("o?her"));
            assertEquals(59, r.keys("*").size());
            assertEquals(59, r.dbsize());
        }
    }
}
