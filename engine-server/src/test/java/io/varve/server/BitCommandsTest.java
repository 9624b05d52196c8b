package io.varve.server;

import io.lettuce.core.BitFieldArgs;
import io.lettuce.core.CopyArgs;
import io.lettuce.core.LcsArgs;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.StringMatchResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.lettuce.core.BitFieldArgs.OverflowType.FAIL;
import static io.lettuce.core.BitFieldArgs.OverflowType.SAT;
import static io.lettuce.core.BitFieldArgs.signed;
import static io.lettuce.core.BitFieldArgs.unsigned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bitmaps, BITFIELD, LCS, COPY and OBJECT through Lettuce, and their exact error words. */
class BitCommandsTest extends OneServerPerClass {

    private static RespClient.Err err(String text) {
        return new RespClient.Err(text);
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void setGetCountAndFindBits(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(0, r.setbit("b", 7, 1));
            assertEquals(1, r.setbit("b", 7, 1), "SETBIT replies the old bit");
            assertEquals("\u0001", r.get("b"));
            assertEquals(1, r.getbit("b", 7));
            assertEquals(0, r.getbit("b", 6));
            assertEquals(0, r.getbit("b", 1_000_000), "beyond the value reads zero");
            assertEquals(0, r.getbit("missing", 3));
            r.setbit("b", 100, 1);
            assertEquals(13, r.strlen("b"), "the value grows with zero bytes");
            assertEquals(2, r.bitcount("b"));
            assertEquals(1, r.bitcount("b", 0, 0));
            assertEquals(1, r.bitcount("b", -1, -1));
            assertEquals(0, r.bitcount("missing"));
            r.set("f", "foobar");
            assertEquals(26, r.bitcount("f"));
            assertEquals(4, r.bitcount("f", 0, 0));
            assertEquals(6, r.bitcount("f", 1, 1));
            assertEquals(7, r.bitpos("b", true));
            assertEquals(0, r.bitpos("b", false));
            setU16(r, "ones", 0xFFFF);
            assertEquals(16, r.bitpos("ones", false), "no end: the value counts as padded with zeros");
            assertEquals(-1, r.bitpos("ones", false, 0, 1), "an explicit end does not pad");
            assertEquals(-1, r.bitpos("missing", true));
            assertEquals(0, r.bitpos("missing", false));
            setU16(r, "x", 0x00F0);
            assertEquals(8, r.bitpos("x", true, 1));
            assertEquals(-1, r.bitpos("x", true, 0, 0));
            r.set("a1", "\u000f");
            setU16(r, "a2", 0xFF01);
            assertEquals(2, r.bitopAnd("and", "a1", "a2"));
            assertEquals(0x0F00, u16(r, "and"));
            assertEquals(2, r.bitopOr("or", "a1", "a2"));
            assertEquals(0xFF01, u16(r, "or"));
            assertEquals(2, r.bitopXor("xor", "a1", "a2", "missing"));
            assertEquals(0xF001, u16(r, "xor"));
            assertEquals(1, r.bitopNot("not", "a1"));
            assertEquals(1, r.strlen("not"));
            assertEquals(0xF0, r.bitfield("not", BitFieldArgs.Builder.get(unsigned(8), 0)).get(0));
            r.set("dst", "old");
            assertEquals(0, r.bitopOr("dst", "missing"));
            assertEquals(0, r.exists("dst"), "an empty result deletes the destination");
            r.expire("b", 100);
            r.setbit("b", 0, 1);
            assertTrue(r.ttl("b") > 0, "SETBIT keeps the expiry");
            r.hset("h", "f", "v");
            assertThrows(RedisCommandExecutionException.class, () -> r.setbit("h", 1, 1));
            assertThrows(RedisCommandExecutionException.class, () -> r.bitcount("h"));
        }
    }

    private static void setU16(RedisCommands<String, String> r, String key, long value) {
        r.del(key);
        r.bitfield(key, BitFieldArgs.Builder.set(unsigned(16), 0, value));
    }

    private static long u16(RedisCommands<String, String> r, String key) {
        return r.bitfield(key, BitFieldArgs.Builder.get(unsigned(16), 0)).get(0);
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void bitfield(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(List.of(0L, 15L), r.bitfield("bf", BitFieldArgs.Builder.set(unsigned(8), 0, 255).get(unsigned(4), 0)),
                    "operations apply in order");
            assertEquals(List.of(15L, -1L, 255L), r.bitfield("bf",
                    BitFieldArgs.Builder.get(unsigned(4), 0).get(signed(8), 0).get(unsigned(8), 0)));
            assertEquals(List.of(0L), r.bitfield("bf", BitFieldArgs.Builder.incrBy(unsigned(8), 0, 1)),
                    "WRAP is the default");
            assertEquals(List.of(255L), r.bitfield("bf",
                    BitFieldArgs.Builder.overflow(SAT).incrBy(unsigned(8), 0, 300)));
            List<Long> failed = r.bitfield("bf", BitFieldArgs.Builder.overflow(FAIL).incrBy(unsigned(8), 0, 1));
            assertEquals(1, failed.size());
            assertNull(failed.get(0), "FAIL refuses the overflowing operation");
            assertEquals(List.of(0L, 127L), r.bitfield("bf",
                    BitFieldArgs.Builder.overflow(SAT).set(signed(8), 8, 1000).get(signed(8), 8)));
            assertEquals(List.of(-128L), r.bitfield("bf", BitFieldArgs.Builder.overflow(SAT).incrBy(signed(8), 8, -1000)));
            assertEquals(List.of(100L, 200L), r.bitfield("bf", BitFieldArgs.Builder
                    .set(signed(16), BitFieldArgs.typeWidthBasedOffset(2), 100).get(signed(16), 32)
                    .incrBy(signed(16), BitFieldArgs.typeWidthBasedOffset(2), 100)).subList(1, 3),
                    "#2 of i16 is bit 32");
            assertEquals(List.of(Long.MAX_VALUE), r.bitfield("bf64", BitFieldArgs.Builder.incrBy(signed(64), 0, Long.MAX_VALUE)));
            assertEquals(List.of(Long.MIN_VALUE), r.bitfield("bf64", BitFieldArgs.Builder.incrBy(signed(64), 0, 1)),
                    "i64 wraps like a Java long");
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void lcs(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.mset(Map.of("key1", "ohmytext", "key2", "mynewtext"));
            assertEquals("mytext", r.lcs(LcsArgs.Builder.keys("key1", "key2")).getMatchString());
            assertEquals(6, r.lcs(LcsArgs.Builder.keys("key1", "key2").justLen()).getLen());
            StringMatchResult idx = r.lcs(LcsArgs.Builder.keys("key1", "key2").withIdx().withMatchLen());
            assertEquals(6, idx.getLen());
            assertEquals(2, idx.getMatches().size());
            var first = idx.getMatches().get(0);
            assertEquals(4, first.getA().getStart());
            assertEquals(7, first.getA().getEnd());
            assertEquals(5, first.getB().getStart());
            assertEquals(8, first.getB().getEnd());
            assertEquals(4, first.getMatchLen());
            var second = idx.getMatches().get(1);
            assertEquals(List.of(2L, 3L, 0L, 1L), List.of(second.getA().getStart(), second.getA().getEnd(),
                    second.getB().getStart(), second.getB().getEnd()));
            assertEquals(1, r.lcs(LcsArgs.Builder.keys("key1", "key2").withIdx().minMatchLen(4)).getMatches().size());
            assertEquals("", r.lcs(LcsArgs.Builder.keys("key1", "missing")).getMatchString());
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void copyAndObject(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.set("s", "12345");
            r.expire("s", 1000);
            assertTrue(r.copy("s", "s2"));
            assertEquals("12345", r.get("s2"));
            assertTrue(r.ttl("s2") > 0, "COPY keeps the expiry");
            r.hset("h", Map.of("a", "1", "b", "2"));
            assertEquals(false, r.copy("h", "s2"), "an existing destination needs REPLACE");
            assertTrue(r.copy("h", "s2", CopyArgs.Builder.replace(true)));
            assertEquals(Map.of("a", "1", "b", "2"), r.hgetall("s2"));
            r.hset("s2", "c", "3");
            assertEquals(Map.of("a", "1", "b", "2"), r.hgetall("h"), "the copy is independent");
            r.zadd("z", 1.0, "x", 2.0, "y");
            assertTrue(r.copy("z", "z2"));
            assertEquals(List.of(ScoredValue.just(1, "x"), ScoredValue.just(2, "y")), r.zrangeWithScores("z2", 0, -1));
            assertEquals(2, r.zcard("z2"));
            r.zrem("z", "x");
            assertEquals(2, r.zcard("z2"));
            assertEquals(false, r.copy("missing", "z3"));
            r.rpush("list", "a", "b", "c");
            assertTrue(r.copy("list", "list2"));
            r.lpop("list");
            assertEquals(List.of("a", "b", "c"), r.lrange("list2", 0, -1), "lists copy with their positions");
            r.sadd("set", "1", "2");
            assertTrue(r.copy("set", "set2"));
            assertEquals(Set.of("1", "2"), r.smembers("set2"));
            assertEquals("intset", r.objectEncoding("set2"));
            r.sadd("set2", "word");
            assertEquals("hashtable", r.objectEncoding("set2"));
            assertEquals("quicklist", r.objectEncoding("list2"));
            assertEquals("int", r.objectEncoding("s"));
            r.set("e", "hello");
            assertEquals("embstr", r.objectEncoding("e"));
            r.set("raw", "x".repeat(45));
            assertEquals("raw", r.objectEncoding("raw"));
            assertEquals("listpack", r.objectEncoding("h"));
            assertEquals("listpack", r.objectEncoding("z"));
            for (int i = 0; i < 513; i++) { // past zset-max-listpack-entries (128) and hash-max-... (512)
                r.zadd("bigz", i, "m" + i);
                r.hset("bigh", "f" + i, "v");
            }
            assertEquals("skiplist", r.objectEncoding("bigz"));
            assertEquals("hashtable", r.objectEncoding("bigh"));
            r.zadd("longz", 1, "m".repeat(65));
            assertEquals("skiplist", r.objectEncoding("longz"));
            assertNull(r.objectEncoding("missing"));
            assertEquals(1, r.objectRefcount("s"));
            assertEquals(0, r.objectIdletime("s"));
        }
    }

    @Test
    void errorWords() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("FLUSHDB");
            String badOffset = "ERR bit offset is not an integer or out of range";
            assertEquals(err(badOffset), c.call("SETBIT", "b", "-1", "1"));
            assertEquals(err(badOffset), c.call("SETBIT", "b", "4294967296", "1"));
            assertEquals(err(badOffset), c.call("GETBIT", "b", "x"));
            assertEquals(0L, c.call("GETBIT", "b", "4294967295"), "the largest offset is accepted");
            assertEquals(err("ERR bit is not an integer or out of range"), c.call("SETBIT", "b", "1", "2"));
            assertEquals(err("ERR syntax error"), c.call("BITCOUNT", "b", "0"));
            assertEquals(err("ERR syntax error"), c.call("BITCOUNT", "b", "0", "1", "WORD"));
            assertEquals(err("ERR value is not an integer or out of range"), c.call("BITCOUNT", "b", "a", "1"));
            assertEquals(err("ERR The bit argument must be 1 or 0."), c.call("BITPOS", "b", "2"));
            assertEquals(err("ERR syntax error"), c.call("BITOP", "NAND", "d", "a"));
            assertEquals(err("ERR BITOP NOT must be called with a single source key."), c.call("BITOP", "NOT", "d", "a", "b"));
            assertEquals(err("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."),
                    c.call("BITFIELD", "b", "GET", "u64", "0"));
            assertEquals(err("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."),
                    c.call("BITFIELD", "b", "GET", "x8", "0"));
            assertEquals(err(badOffset), c.call("BITFIELD", "b", "GET", "u8", "-1"));
            assertEquals(err("ERR Invalid OVERFLOW type specified"), c.call("BITFIELD", "b", "OVERFLOW", "BOUNCE"));
            assertEquals(err("ERR syntax error"), c.call("BITFIELD", "b", "GET", "u8"));
            assertEquals(err("ERR BITFIELD_RO only supports the GET subcommand"),
                    c.call("BITFIELD_RO", "b", "SET", "u8", "0", "1"));
            assertEquals(err("ERR If you want both the length and indexes, please just use IDX."),
                    c.call("LCS", "a", "b", "LEN", "IDX"));
            assertEquals(err("ERR syntax error"), c.call("LCS", "a", "b", "FAST"));
            c.call("HSET", "h", "f", "v");
            assertEquals(err("ERR The specified keys must contain string values"), c.call("LCS", "h", "a"));
            assertEquals(err("WRONGTYPE Operation against a key holding the wrong kind of value"), c.call("GETBIT", "h", "0"));
            assertEquals(err("ERR source and destination objects are the same"), c.call("COPY", "h", "h"));
            assertEquals(err("ERR DB index is out of range"), c.call("COPY", "h", "h2", "DB", "16"));
            assertEquals(1L, c.call("COPY", "h", "h2", "DB", "1"));
            assertEquals(1L, c.call("COPY", "h", "h2", "DB", "0"));
            assertEquals(err("ERR unknown subcommand 'bogus'. Try OBJECT HELP."), c.call("OBJECT", "bogus", "h"));
            assertEquals(err("ERR wrong number of arguments for 'object|encoding' command"), c.call("OBJECT", "ENCODING"));
            assertTrue(((RespClient.Err) c.call("OBJECT", "FREQ", "h")).text().startsWith("ERR An LFU maxmemory policy"));
            assertTrue(((List<?>) c.call("OBJECT", "HELP")).size() > 5);
            c.call("SET", "lcs1", "ohmytext");
            c.call("SET", "lcs2", "mynewtext");
            assertEquals(Arrays.asList("matches", List.of(List.of(List.of(4L, 7L), List.of(5L, 8L), 4L),
                    List.of(List.of(2L, 3L), List.of(0L, 1L), 2L)), "len", 6L),
                    c.call("LCS", "lcs1", "lcs2", "IDX", "WITHMATCHLEN"));
            c.call("BITFIELD", "bits", "SET", "u16", "0", "65520");
            assertEquals(12L, c.call("BITCOUNT", "bits", "0", "-1", "BIT"));
            assertEquals(5L, c.call("BITCOUNT", "bits", "5", "9", "BIT"));
            assertEquals(List.of(15L, 255L), c.call("BITFIELD_RO", "bits", "GET", "u4", "0", "GET", "u8", "#0"));
            assertEquals(12L, c.call("BITPOS", "bits", "0", "8", "-1", "BIT"));
        }
    }
}
