package io.varve.server;

import io.lettuce.core.LMoveArgs;
import io.lettuce.core.LMPopArgs;
import io.lettuce.core.LPosArgs;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** List commands through Lettuce: results, options, reply shapes and Redis's error texts. */
class ListCommandsTest extends OneServerPerClass {

    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void pushPopAndRead(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(2, r.rpush("l", "b", "c"));
            assertEquals(4, r.lpush("l", "z", "a"), "LPUSH pushes one by one, so the last ends up first");
            assertEquals(List.of("a", "z", "b", "c"), r.lrange("l", 0, -1));
            assertEquals(4, r.llen("l"));
            assertEquals("a", r.lindex("l", 0));
            assertEquals("c", r.lindex("l", -1));
            assertEquals("z", r.lindex("l", -3));
            assertNull(r.lindex("l", 4));
            assertNull(r.lindex("l", -5));
            assertEquals(List.of("z", "b"), r.lrange("l", 1, 2));
            assertEquals(List.of("b", "c"), r.lrange("l", -2, 100));
            assertEquals(List.of(), r.lrange("l", 3, 1));
            assertEquals(List.of(), r.lrange("l", 10, 20));
            assertEquals(List.of("a", "z", "b", "c"), r.lrange("l", -100, 100));
            assertEquals(List.of(), r.lrange("nokey", 0, -1));
            assertEquals("a", r.lpop("l"));
            assertEquals("c", r.rpop("l"));
            assertEquals(List.of("z", "b"), r.lrange("l", 0, -1));
            assertEquals(List.of("b", "z"), r.rpop("l", 5), "RPOP count pops from the tail, in pop order");
            assertEquals(0, r.exists("l"), "a list whose last element goes is deleted");
            assertNull(r.lpop("l"));
            assertEquals(0, r.llen("l"));
            assertEquals(0, r.lpushx("l", "x"));
            assertEquals(0, r.rpushx("l", "x"));
            assertEquals(0, r.exists("l"));
            r.rpush("l", "1");
            assertEquals(2, r.lpushx("l", "0"));
            assertEquals(3, r.rpushx("l", "2"));
            assertEquals(List.of("0", "1"), r.lpop("l", 2));
            assertEquals(List.of(), r.lpop("l", 0), "count 0 on a list: empty array");
            assertEquals("list", r.type("l"));
        }
    }

    @Test
    void popCountRepliesNilArrayForMissingKeyAndRejectsNegative() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(List.of(), r.lpop("missing", 2), "Lettuce maps the nil array to an empty list");
            Object raw = l.connection.sync().dispatch(CommandType.LPOP,
                    new io.lettuce.core.output.ArrayOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8)
                            .addKey("missing").add(2));
            assertEquals(List.of(), raw);
            error(() -> r.lpop("missing", -1), "ERR value is out of range, must be positive");
            error(() -> raw(r, "LPOP", "missing", "x"), "ERR value is out of range, must be positive");
            error(() -> r.dispatch(CommandType.LPOP, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey("l").add(1).add(2)),
                    "ERR wrong number of arguments for 'lpop' command");
        }
    }

    @Test
    void setInsertRemoveTrim() {
        try (Lettuce l = connect(ProtocolVersion.RESP3)) {
            RedisCommands<String, String> r = l.sync();
            r.rpush("l", "a", "b", "c", "b", "d", "b");
            assertEquals("OK", r.lset("l", 1, "B"));
            assertEquals("OK", r.lset("l", -1, "Z"));
            assertEquals(List.of("a", "B", "c", "b", "d", "Z"), r.lrange("l", 0, -1));
            error(() -> r.lset("l", 6, "x"), "ERR index out of range");
            error(() -> r.lset("nokey", 0, "x"), "ERR no such key");
            assertEquals(7, r.linsert("l", true, "a", "0"), "before the head: the left side shifts");
            assertEquals(8, r.linsert("l", false, "d", "e"), "after an element near the tail: the right side shifts");
            assertEquals(9, r.linsert("l", false, "B", "1"));
            assertEquals(List.of("0", "a", "B", "1", "c", "b", "d", "e", "Z"), r.lrange("l", 0, -1));
            assertEquals(-1, r.linsert("l", true, "nothere", "x"));
            assertEquals(0, r.linsert("nokey", true, "a", "x"));
            error(() -> r.dispatch(CommandType.LINSERT, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey("l").add("middle").add("a").add("x")), "ERR syntax error");
            r.del("r");
            r.rpush("r", "x", "y", "x", "z", "x", "x");
            assertEquals(2, r.lrem("r", 2, "x"));
            assertEquals(List.of("y", "z", "x", "x"), r.lrange("r", 0, -1));
            assertEquals(1, r.lrem("r", -1, "x"));
            assertEquals(List.of("y", "z", "x"), r.lrange("r", 0, -1));
            r.rpush("r", "x");
            assertEquals(2, r.lrem("r", 0, "x"));
            assertEquals(List.of("y", "z"), r.lrange("r", 0, -1));
            assertEquals(0, r.lrem("r", 0, "none"));
            assertEquals(1, r.lrem("r", 0, "y"));
            assertEquals(1, r.lrem("r", 0, "z"));
            assertEquals(0, r.exists("r"));
            r.rpush("t", "0", "1", "2", "3", "4", "5");
            assertEquals("OK", r.ltrim("t", 1, -2));
            assertEquals(List.of("1", "2", "3", "4"), r.lrange("t", 0, -1));
            assertEquals("OK", r.ltrim("t", -3, 1));
            assertEquals(List.of("2"), r.lrange("t", 0, -1));
            assertEquals("OK", r.ltrim("t", 5, 10));
            assertEquals(0, r.exists("t"), "trimmed to nothing: deleted");
            assertEquals("OK", r.ltrim("nokey", 0, 1));
            r.rpush("p", "0");
            r.lpush("p", "-1", "-2");
            assertEquals("-2", r.lindex("p", 0), "positions left of the first push sort before it");
            assertEquals(List.of("-2", "-1", "0"), r.lrange("p", 0, -1));
        }
    }

    @Test
    void lpos() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.rpush("l", "a", "b", "c", "1", "2", "3", "c", "c");
            assertEquals(2, r.lpos("l", "c"));
            assertNull(r.lpos("l", "nope"));
            assertNull(r.lpos("nokey", "a"));
            assertEquals(6, r.lpos("l", "c", LPosArgs.Builder.rank(2)));
            assertEquals(7, r.lpos("l", "c", LPosArgs.Builder.rank(-1)));
            assertEquals(6, r.lpos("l", "c", LPosArgs.Builder.rank(-2)));
            assertEquals(List.of(2L, 6L), r.lpos("l", "c", 2));
            assertEquals(List.of(2L, 6L, 7L), r.lpos("l", "c", 0));
            assertEquals(List.of(6L, 7L), r.lpos("l", "c", 0, LPosArgs.Builder.rank(2)));
            assertEquals(List.of(7L, 6L, 2L), r.lpos("l", "c", 0, LPosArgs.Builder.rank(-1)));
            assertEquals(List.of(2L), r.lpos("l", "c", 0, LPosArgs.Builder.maxlen(6)));
            assertEquals(List.of(7L, 6L), r.lpos("l", "c", 0, LPosArgs.Builder.rank(-1).maxlen(2)));
            assertNull(r.lpos("l", "a", LPosArgs.Builder.rank(-1).maxlen(2)));
            assertEquals(List.of(), r.lpos("nokey", "a", 1));
            error(() -> r.lpos("l", "c", LPosArgs.Builder.rank(0)), "ERR RANK can't be zero: use 1 to start from the "
                    + "first match, 2 from the second ... or use negative to start from the end of the list");
            error(() -> r.lpos("l", "c", -1), "ERR COUNT can't be negative");
            error(() -> raw(r, "LPOS", "l", "c", "MAXLEN", "-1"), "ERR MAXLEN can't be negative");
            error(() -> raw(r, "LPOS", "l", "c", "COUNT", "x"), "ERR COUNT can't be negative");
            error(() -> raw(r, "LPOS", "l", "c", "RANK", "x"), "ERR value is not an integer or out of range");
            error(() -> r.dispatch(CommandType.LPOS, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey("l").add("c").add("RANK")), "ERR syntax error");
        }
    }

    @Test
    void moves() {
        try (Lettuce l = connect(ProtocolVersion.RESP3)) {
            RedisCommands<String, String> r = l.sync();
            r.rpush("a", "1", "2", "3");
            assertEquals("3", r.rpoplpush("a", "b"));
            assertEquals("1", r.lmove("a", "b", LMoveArgs.Builder.leftRight()));
            assertEquals(List.of("2"), r.lrange("a", 0, -1));
            assertEquals(List.of("3", "1"), r.lrange("b", 0, -1));
            assertEquals("3", r.lmove("b", "b", LMoveArgs.Builder.leftRight()), "rotation of one list");
            assertEquals(List.of("1", "3"), r.lrange("b", 0, -1));
            assertEquals("2", r.lmove("a", "b", LMoveArgs.Builder.rightLeft()));
            assertEquals(0, r.exists("a"));
            assertNull(r.lmove("a", "b", LMoveArgs.Builder.leftLeft()));
            assertNull(r.rpoplpush("a", "b"));
            r.set("s", "x");
            assertNull(r.rpoplpush("a", "s"), "an empty source is checked first");
            error(() -> r.rpoplpush("b", "s"), WRONGTYPE);
            error(() -> r.rpoplpush("s", "b"), WRONGTYPE);
            assertEquals(List.of("2", "1", "3"), r.lrange("b", 0, -1), "a failed move changes nothing");
            error(() -> r.dispatch(CommandType.LMOVE, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey("b").addKey("c").add("UP").add("LEFT")), "ERR syntax error");
        }
    }

    @Test
    void lmpop() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.rpush("b", "1", "2", "3");
            KeyValue<String, List<String>> got = r.lmpop(LMPopArgs.Builder.left(), "a", "b");
            assertEquals("b", got.getKey());
            assertEquals(List.of("1"), got.getValue());
            got = r.lmpop(LMPopArgs.Builder.right().count(5), "a", "b");
            assertEquals(List.of("3", "2"), got.getValue());
            assertTrue(r.lmpop(LMPopArgs.Builder.left(), "a", "b") == null || !r.lmpop(LMPopArgs.Builder.left(), "a", "b").hasValue());
            r.set("s", "x");
            error(() -> r.lmpop(LMPopArgs.Builder.left(), "s"), WRONGTYPE);
            error(() -> raw(r, "LMPOP", "0", "a", "LEFT"), "ERR numkeys should be greater than 0");
            error(() -> raw(r, "LMPOP", "x", "a", "LEFT"), "ERR numkeys should be greater than 0");
            error(() -> raw(r, "LMPOP", "3", "a", "LEFT"), "ERR syntax error");
            error(() -> raw(r, "LMPOP", "9223372036854775807", "a", "LEFT"), "ERR syntax error");
            error(() -> raw(r, "LMPOP", "1", "a", "UP"), "ERR syntax error");
            error(() -> raw(r, "LMPOP", "1", "a", "LEFT", "COUNT", "0"), "ERR count should be greater than 0");
            error(() -> raw(r, "LMPOP", "1", "a", "LEFT", "COUNT"), "ERR syntax error");
        }
    }

    @Test
    void wrongTypeEverywhere() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.set("s", "x");
            r.sadd("set", "m");
            r.rpush("l", "a");
            for (String key : List.of("s", "set")) {
                error(() -> r.lpush(key, "a"), WRONGTYPE);
                error(() -> r.rpushx(key, "a"), WRONGTYPE);
                error(() -> r.lpop(key), WRONGTYPE);
                error(() -> r.llen(key), WRONGTYPE);
                error(() -> r.lindex(key, 0), WRONGTYPE);
                error(() -> r.lrange(key, 0, 1), WRONGTYPE);
                error(() -> r.lset(key, 0, "a"), WRONGTYPE);
                error(() -> r.linsert(key, true, "a", "b"), WRONGTYPE);
                error(() -> r.lrem(key, 0, "a"), WRONGTYPE);
                error(() -> r.ltrim(key, 0, 1), WRONGTYPE);
                error(() -> r.lpos(key, "a"), WRONGTYPE);
            }
            error(() -> r.get("l"), WRONGTYPE);
            error(() -> r.hget("l", "f"), WRONGTYPE);
            error(() -> r.sadd("l", "m"), WRONGTYPE);
            error(() -> r.scard("l"), WRONGTYPE);
            error(() -> r.smembers("l"), WRONGTYPE);
            assertEquals("OK", r.set("l", "now a string"), "SET overwrites any type");
            assertEquals("string", r.type("l"));
        }
    }

    @Test
    void keyCommandsCoverLists() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.lpush("l", "c", "b", "a");
            assertEquals("list", r.type("l"));
            assertEquals(1, r.exists("l"));
            assertTrue(r.expire("l", 100));
            assertTrue(r.ttl("l") > 0);
            assertTrue(r.persist("l"));
            assertEquals(-1, r.ttl("l"));
            assertEquals("OK", r.rename("l", "m"));
            assertEquals(List.of("a", "b", "c"), r.lrange("m", 0, -1));
            assertEquals(0, r.exists("l"));
            assertEquals(List.of("m"), r.scan(KeyScanArgs.Builder.type("list").limit(100)).getKeys());
            assertEquals(List.of(), r.scan(KeyScanArgs.Builder.type("set").limit(100)).getKeys());
            assertEquals(1, r.del("m"));
            r.rpush("m", "new");
            assertEquals(List.of("new"), r.lrange("m", 0, -1), "a recreated list never shows old elements");
            assertEquals(1, r.unlink("m"));
        }
    }

    private static Object raw(RedisCommands<String, String> r, String... args) {
        CommandArgs<String, String> a = new CommandArgs<>(StringCodec.UTF8);
        for (int i = 1; i < args.length; i++) {
            a.add(args[i]);
        }
        return r.dispatch(CommandType.valueOf(args[0]), new StatusOutput<>(StringCodec.UTF8), a);
    }

    static void error(Runnable call, String expected) {
        RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class, call::run);
        assertEquals(expected, e.getMessage());
    }
}
