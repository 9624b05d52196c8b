package io.varve.server;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ValueScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.varve.server.ListCommandsTest.WRONGTYPE;
import static io.varve.server.ListCommandsTest.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Set commands through Lettuce, over RESP2 (arrays) and RESP3 (set replies). */
class SetCommandsTest extends OneServerPerClass {

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void addRemoveAndRead(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(3, r.sadd("s", "a", "b", "c", "a"));
            assertEquals(1, r.sadd("s", "c", "d"));
            assertEquals(Set.of("a", "b", "c", "d"), r.smembers("s"));
            assertEquals(4, r.scard("s"));
            assertTrue(r.sismember("s", "a"));
            assertFalse(r.sismember("s", "z"));
            assertFalse(r.sismember("nokey", "a"));
            assertEquals(List.of(true, false, true), r.smismember("s", "a", "z", "d"));
            assertEquals(List.of(false), r.smismember("nokey", "a"));
            assertEquals(2, r.srem("s", "a", "b", "a", "zz"));
            assertEquals(Set.of("c", "d"), r.smembers("s"));
            assertEquals(0, r.srem("nokey", "a"));
            assertEquals(2, r.srem("s", "c", "d"));
            assertEquals(0, r.exists("s"), "a set whose last member goes is deleted");
            assertEquals(Set.of(), r.smembers("s"));
            assertEquals(0, r.scard("s"));
            r.sadd("s", "x");
            assertEquals("set", r.type("s"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void popAndRandomMembers(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            Set<String> all = Set.of("1", "2", "3", "4", "5");
            r.sadd("s", all.toArray(new String[0]));
            String one = r.srandmember("s");
            assertTrue(all.contains(one));
            List<String> distinct = r.srandmember("s", 3);
            assertEquals(3, new HashSet<>(distinct).size());
            assertTrue(all.containsAll(distinct));
            assertEquals(all, new HashSet<>(r.srandmember("s", 10)), "a count above the size returns every member");
            List<String> repeated = r.srandmember("s", -20);
            assertEquals(20, repeated.size(), "a negative count repeats members");
            assertTrue(all.containsAll(repeated));
            assertEquals(List.of(), r.srandmember("s", 0));
            error(() -> r.srandmember("s", -(1L << 24) - 1),
                    "ERR value is out of range, value must between -16777216 and 9223372036854775807");
            assertNull(r.srandmember("nokey"));
            assertEquals(List.of(), r.srandmember("nokey", 3));
            assertEquals(5, r.scard("s"), "SRANDMEMBER removes nothing");
            String popped = r.spop("s");
            assertTrue(all.contains(popped));
            assertFalse(r.sismember("s", popped));
            Set<String> more = r.spop("s", 2);
            assertEquals(2, more.size());
            assertFalse(more.contains(popped));
            assertEquals(2, r.scard("s"));
            assertEquals(Set.of(), r.spop("s", 0));
            Set<String> rest = r.spop("s", 10);
            assertEquals(2, rest.size());
            Set<String> seen = new HashSet<>(rest);
            seen.addAll(more);
            seen.add(popped);
            assertEquals(all, seen, "every member popped exactly once");
            assertEquals(0, r.exists("s"));
            assertNull(r.spop("s"));
            assertEquals(Set.of(), r.spop("s", 3));
            error(() -> r.spop("s", -1), "ERR value is out of range, must be positive");
        }
    }

    @Test
    void smove() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.sadd("a", "x", "y");
            r.sadd("b", "y");
            assertTrue(r.smove("a", "b", "x"));
            assertEquals(Set.of("y"), r.smembers("a"));
            assertEquals(Set.of("x", "y"), r.smembers("b"));
            assertTrue(r.smove("a", "b", "y"), "moving a member the destination has still removes it from the source");
            assertEquals(0, r.exists("a"));
            assertEquals(2, r.scard("b"));
            assertFalse(r.smove("a", "b", "x"));
            assertFalse(r.smove("b", "c", "nothere"));
            assertTrue(r.smove("b", "b", "x"));
            assertTrue(r.smove("b", "c", "x"));
            assertEquals(Set.of("x"), r.smembers("c"));
            r.set("str", "v");
            error(() -> r.smove("b", "str", "y"), WRONGTYPE);
            error(() -> r.smove("str", "b", "y"), WRONGTYPE);
            assertFalse(r.smove("nokey", "str", "y"), "a missing source answers 0 before types are checked");
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void algebra(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.sadd("a", "1", "2", "3", "4");
            r.sadd("b", "3", "4", "5");
            r.sadd("c", "4", "6");
            assertEquals(Set.of("4"), r.sinter("a", "b", "c"));
            assertEquals(Set.of("3", "4"), r.sinter("a", "b"));
            assertEquals(Set.of(), r.sinter("a", "missing"));
            assertEquals(Set.of("1", "2", "3", "4", "5", "6"), r.sunion("a", "b", "c"));
            assertEquals(Set.of("1", "2"), r.sdiff("a", "b", "c"));
            assertEquals(Set.of("1", "2", "3", "4"), r.sdiff("a", "missing"));
            assertEquals(Set.of(), r.sdiff("missing", "a"));
            assertEquals(2, r.sinterstore("d", "a", "b"));
            assertEquals(Set.of("3", "4"), r.smembers("d"));
            r.set("e", "a string is replaced");
            assertEquals(6, r.sunionstore("e", "a", "b", "c"));
            assertEquals("set", r.type("e"));
            assertEquals(2, r.sdiffstore("a", "a", "b"), "the destination may be a source");
            assertEquals(Set.of("1", "2"), r.smembers("a"));
            assertEquals(0, r.sinterstore("d", "a", "c"));
            assertEquals(0, r.exists("d"), "an empty result deletes the destination");
            assertEquals(1, r.sintercard("b", "c"));
            assertEquals(3, r.sintercard("e", "b"));
            assertEquals(1, r.sintercard(1, "e", "b"));
            assertEquals(3, r.sintercard(0, "e", "b"), "LIMIT 0 is no limit");
            assertEquals(0, r.sintercard("e", "missing"));
            r.set("str", "x");
            error(() -> r.sinter("a", "str"), WRONGTYPE);
            error(() -> r.sunion("str"), WRONGTYPE);
            error(() -> r.sdiffstore("x", "a", "str"), WRONGTYPE);
            error(() -> r.sintercard("a", "str"), WRONGTYPE);
            error(() -> raw(r, "SINTERCARD", "0", "a"), "ERR numkeys should be greater than 0");
            error(() -> raw(r, "SINTERCARD", "3", "a", "b"), "ERR Number of keys can't be greater than number of args");
            error(() -> raw(r, "SINTERCARD", "1", "a", "LIMIT", "-1"), "ERR LIMIT can't be negative");
            error(() -> raw(r, "SINTERCARD", "1", "a", "LIMIT"), "ERR syntax error");
            error(() -> raw(r, "SINTERCARD", "1", "a", "b"), "ERR syntax error");
        }
    }

    @Test
    void sscanVisitsEveryMemberOnce() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            Set<String> all = new HashSet<>();
            for (int i = 0; i < 57; i++) {
                all.add("m" + i);
            }
            all.add("other");
            r.sadd("s", all.toArray(new String[0]));
            List<String> seen = new ArrayList<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                ValueScanCursor<String> page = r.sscan("s", cursor, ScanArgs.Builder.limit(10));
                assertTrue(page.getValues().size() <= 10);
                seen.addAll(page.getValues());
                cursor = page;
            } while (!cursor.isFinished());
            assertEquals(all.size(), seen.size());
            assertEquals(all, new HashSet<>(seen));
            ValueScanCursor<String> matched = r.sscan("s", ScanArgs.Builder.limit(1000).match("oth*"));
            assertEquals(List.of("other"), matched.getValues());
            assertTrue(matched.isFinished());
            assertEquals(List.of(), r.sscan("nokey").getValues());
            error(() -> raw(r, "SSCAN", "s", "0", "COUNT", "0"), "ERR syntax error");
            error(() -> raw(r, "SSCAN", "s", "x"), "ERR invalid cursor");
            r.set("str", "x");
            error(() -> r.sscan("str"), WRONGTYPE);
        }
    }

    @Test
    void keyCommandsCoverSets() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.sadd("s", "a", "b");
            r.rpush("l", "x");
            assertEquals(2, r.exists("s", "l"));
            assertTrue(r.pexpire("s", 100_000));
            assertTrue(r.pttl("s") > 0);
            assertEquals("OK", r.rename("s", "t"));
            assertTrue(r.pttl("t") > 0, "RENAME keeps the expiry");
            assertEquals(Set.of("a", "b"), r.smembers("t"));
            assertEquals(0, r.exists("s"));
            r.set("str", "v");
            r.rpush("list", "v");
            for (String key : List.of("str", "list")) {
                error(() -> r.sadd(key, "m"), WRONGTYPE);
                error(() -> r.srem(key, "m"), WRONGTYPE);
                error(() -> r.smembers(key), WRONGTYPE);
                error(() -> r.sismember(key, "m"), WRONGTYPE);
                error(() -> r.smismember(key, "m"), WRONGTYPE);
                error(() -> r.scard(key), WRONGTYPE);
                error(() -> r.spop(key), WRONGTYPE);
                error(() -> r.spop(key, 2), WRONGTYPE);
                error(() -> r.srandmember(key), WRONGTYPE);
                error(() -> r.srandmember(key, 2), WRONGTYPE);
                error(() -> r.sscan(key), WRONGTYPE);
            }
            r.del("str", "list");
            error(() -> r.lpush("t", "x"), WRONGTYPE);
            error(() -> r.hset("t", "f", "v"), WRONGTYPE);
            error(() -> r.incr("t"), WRONGTYPE);
            assertEquals(2, r.del("t", "l"));
            r.sadd("t", "new");
            assertEquals(Set.of("new"), r.smembers("t"), "a recreated set never shows old members");
        }
    }

    private static Object raw(RedisCommands<String, String> r, String... args) {
        CommandArgs<String, String> a = new CommandArgs<>(StringCodec.UTF8);
        for (int i = 1; i < args.length; i++) {
            a.add(args[i]);
        }
        return r.dispatch(CommandType.valueOf(args[0]), new StatusOutput<>(StringCodec.UTF8), a);
    }
}
