package io.varve.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Sorted-set replies byte for byte where clients hide them: score texts, RESP3 shapes, exact error words. */
class ZSetRepliesTest extends OneServerPerClass {

    private static RespClient.Err err(String text) {
        return new RespClient.Err(text);
    }

    @Test
    void scoresAreFormattedAsRedisFormatsThem() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("FLUSHDB");
            c.call("ZADD", "z", "1", "one", "1.5", "frac", "0.1", "tenth", "1e20", "big", "0.00001", "small",
                    "-inf", "lo", "+inf", "hi", "-0", "negzero", "123456789012345678", "long");
            assertEquals("1", c.call("ZSCORE", "z", "one"));
            assertEquals("1.5", c.call("ZSCORE", "z", "frac"));
            assertEquals("0.1", c.call("ZSCORE", "z", "tenth"));
            assertEquals("1e+20", c.call("ZSCORE", "z", "big"));
            assertEquals("1e-05", c.call("ZSCORE", "z", "small"));
            assertEquals("-inf", c.call("ZSCORE", "z", "lo"));
            assertEquals("inf", c.call("ZSCORE", "z", "hi"));
            assertEquals("0", c.call("ZSCORE", "z", "negzero"));
            assertEquals("1.2345678901234568e+17", c.call("ZSCORE", "z", "long"));
            assertEquals(List.of("lo", "-inf", "negzero", "0"), c.call("ZRANGE", "z", "0", "1", "WITHSCORES"));
            assertEquals("3.5", c.call("ZINCRBY", "z", "2.5", "one"));
            assertEquals("0", c.call("ZINCRBY", "z", "-0", "fresh"), "-0 is stored and replied as 0");
            assertEquals("0", c.call("ZADD", "z", "INCR", "-0", "fresh2"));
            c.call("ZREM", "z", "fresh", "fresh2");
            assertEquals(List.of(5L, "3.5"), c.call("ZRANK", "z", "one", "WITHSCORE"));
            assertEquals(null, c.call("ZRANK", "z", "nope", "WITHSCORE"));
            assertEquals(null, c.call("ZRANK", "z", "nope"));
        }
    }

    @Test
    void resp3UsesDoublesAndPairs() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("FLUSHDB");
            c.call("HELLO", "3");
            c.call("ZADD", "z", "1", "a", "2.5", "b");
            assertEquals(2.5, c.call("ZSCORE", "z", "b"));
            assertEquals(List.of(List.of("a", 1.0), List.of("b", 2.5)), c.call("ZRANGE", "z", "0", "-1", "WITHSCORES"));
            assertEquals(List.of("a", "b"), c.call("ZRANGE", "z", "0", "-1"));
            assertEquals(List.of(1.0, RespClient.NULL), c.call("ZMSCORE", "z", "a", "x"));
            assertEquals(List.of(1L, 2.5), c.call("ZRANK", "z", "b", "WITHSCORE"));
            assertEquals(RespClient.NULL, c.call("ZRANK", "z", "x", "WITHSCORE"));
            assertEquals(List.of("a", 1.0), c.call("ZPOPMIN", "z"), "without a count: one flat pair");
            c.call("ZADD", "z", "1", "a");
            assertEquals(List.of(List.of("a", 1.0)), c.call("ZPOPMIN", "z", "1"), "with a count: nested pairs");
            assertEquals(List.of("z", List.of(List.of("b", 2.5))), c.call("ZMPOP", "1", "z", "MIN"));
            assertEquals(RespClient.NULL, c.call("ZMPOP", "1", "z", "MIN"));
        }
    }

    @Test
    void resp2PopAndMpopShapes() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("FLUSHDB");
            c.call("ZADD", "z", "1", "a", "2", "b", "3", "c");
            assertEquals(List.of("a", "1"), c.call("ZPOPMIN", "z"));
            assertEquals(List.of("c", "3"), c.call("ZPOPMAX", "z", "1"));
            assertEquals(List.of("z", List.of(List.of("b", "2"))), c.call("ZMPOP", "2", "nokey", "z", "MAX", "COUNT", "5"));
            assertEquals(null, c.call("ZMPOP", "1", "z", "MAX"));
            assertEquals(List.of(), c.call("ZPOPMIN", "z"));
            assertEquals(List.of(), c.call("ZPOPMIN", "z", "0"));
        }
    }

    @Test
    void errorWords() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("FLUSHDB");
            c.call("ZADD", "z", "1", "a", "2", "b");
            assertEquals(err("ERR syntax error"), c.call("ZADD", "z", "NX", "1"));
            assertEquals(err("ERR syntax error"), c.call("ZADD", "z", "NX", "CH"));
            assertEquals(err("ERR XX and NX options at the same time are not compatible"),
                    c.call("ZADD", "z", "NX", "XX", "1", "a"));
            assertEquals(err("ERR GT, LT, and/or NX options at the same time are not compatible"),
                    c.call("ZADD", "z", "GT", "LT", "1", "a"));
            assertEquals(err("ERR GT, LT, and/or NX options at the same time are not compatible"),
                    c.call("ZADD", "z", "NX", "GT", "1", "a"));
            assertEquals(err("ERR INCR option supports a single increment-element pair"),
                    c.call("ZADD", "z", "INCR", "1", "a", "2", "b"));
            assertEquals(err("ERR value is not a valid float"), c.call("ZADD", "z", "abc", "a"));
            assertEquals(err("ERR value is not a valid float"), c.call("ZADD", "z", "nan", "a"));
            assertEquals(err("ERR value is not a valid float"), c.call("ZADD", "z", "1e400", "a"));
            assertEquals(err("ERR value is not a valid float"), c.call("ZINCRBY", "z", "x", "a"));
            assertEquals(err("ERR min or max is not a float"), c.call("ZRANGEBYSCORE", "z", "x", "1"));
            assertEquals(err("ERR min or max is not a float"), c.call("ZCOUNT", "z", "(", "1"));
            assertEquals(err("ERR min or max not valid string range item"), c.call("ZRANGEBYLEX", "z", "a", "+"));
            assertEquals(err("ERR min or max not valid string range item"), c.call("ZLEXCOUNT", "z", "-", "b"));
            assertEquals(err("ERR value is not an integer or out of range"), c.call("ZRANGE", "z", "a", "1"));
            assertEquals(err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"),
                    c.call("ZRANGE", "z", "0", "1", "LIMIT", "0", "1"));
            assertEquals(err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"),
                    c.call("ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"));
            assertEquals(err("ERR syntax error"), c.call("ZRANGEBYSCORE", "z", "0", "1", "REV"));
            assertEquals(err("ERR syntax error"), c.call("ZRANGESTORE", "d", "z", "0", "1", "WITHSCORES"));
            assertEquals(err("ERR syntax error"), c.call("ZRANK", "z", "a", "bogus"));
            assertEquals(err("ERR value is out of range, must be positive"), c.call("ZPOPMIN", "z", "-1"));
            assertEquals(err("ERR syntax error"), c.call("ZPOPMIN", "z", "1", "2"));
            assertEquals(err("ERR numkeys should be greater than 0"), c.call("ZMPOP", "0", "z", "MIN"));
            assertEquals(err("ERR syntax error"), c.call("ZMPOP", "2", "z", "MIN"));
            assertEquals(err("ERR syntax error"), c.call("ZMPOP", "1", "z", "SIDEWAYS"));
            assertEquals(err("ERR count should be greater than 0"), c.call("ZMPOP", "1", "z", "MIN", "COUNT", "0"));
            assertEquals(err("ERR at least 1 input key is needed for 'zunionstore' command"),
                    c.call("ZUNIONSTORE", "d", "0", "z"));
            assertEquals(err("ERR syntax error"), c.call("ZUNION", "3", "z", "y"));
            assertEquals(err("ERR weight value is not a float"), c.call("ZUNION", "1", "z", "WEIGHTS", "x"));
            assertEquals(err("ERR syntax error"), c.call("ZUNION", "1", "z", "AGGREGATE", "AVG"));
            assertEquals(err("ERR syntax error"), c.call("ZDIFF", "1", "z", "WEIGHTS", "1"));
            assertEquals(err("ERR syntax error"), c.call("ZUNIONSTORE", "d", "1", "z", "WITHSCORES"));
            assertEquals(err("ERR LIMIT can't be negative"), c.call("ZINTERCARD", "1", "z", "LIMIT", "-1"));
            assertEquals(err("ERR syntax error"), c.call("ZRANDMEMBER", "z", "1", "bogus"));
            assertEquals(err("ERR value is out of range, value must between -16777216 and 9223372036854775807"),
                    c.call("ZRANDMEMBER", "z", "-16777217"));
            assertEquals(err("ERR syntax error"), c.call("ZMPOP", "9223372036854775807", "z", "MIN"));
            assertEquals(err("ERR invalid cursor"), c.call("ZSCAN", "z", "x"));
            c.call("ZADD", "inf", "inf", "a");
            assertEquals(err("ERR resulting score is not a number (NaN)"), c.call("ZINCRBY", "inf", "-inf", "a"));
            c.call("SET", "s", "v");
            String wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
            for (String[] call : List.of(new String[] {"ZADD", "s", "1", "a"}, new String[] {"ZCARD", "s"},
                    new String[] {"ZRANGE", "s", "0", "1"}, new String[] {"ZUNION", "2", "z", "s"},
                    new String[] {"ZPOPMIN", "s"}, new String[] {"ZSCAN", "s", "0"},
                    new String[] {"ZRANDMEMBER", "s"}, new String[] {"ZREMRANGEBYRANK", "s", "0", "1"})) {
                assertEquals(err(wrongType), c.call(call), String.join(" ", call));
            }
            assertEquals(List.of("a", "b"), c.call("ZRANGE", "z", "0", "-1"), "failed commands change nothing");
        }
    }

    @Test
    void rangeOptionsInAnyOrder() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("FLUSHDB");
            c.call("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d");
            assertEquals(List.of("c", "b"), c.call("ZRANGE", "z", "(4", "1", "LIMIT", "0", "2", "REV", "BYSCORE"));
            assertEquals(List.of("d", "4", "c", "3"), c.call("ZRANGE", "z", "0", "1", "REV", "WITHSCORES"));
            assertEquals(List.of("b", "c"), c.call("ZRANGE", "z", "[b", "(d", "BYLEX"));
            assertEquals(List.of("c"), c.call("ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", "1", "1"));
            assertEquals(List.of(), c.call("ZRANGE", "z", "+", "-", "BYLEX"));
            assertEquals(List.of(), c.call("ZRANGEBYSCORE", "z", "0", "10", "LIMIT", "-1", "2"));
            assertEquals(List.of("a", "b", "c", "d"), c.call("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "-1"));
            assertEquals(2L, c.call("ZRANGESTORE", "d", "z", "2", "3", "BYSCORE"));
            assertEquals(List.of("b", "c"), c.call("ZRANGE", "d", "0", "-1"));
            assertEquals(List.of("a", "2", "b", "4", "c", "6", "d", "8"),
                    c.call("ZUNION", "1", "z", "WEIGHTS", "2", "WITHSCORES", "AGGREGATE", "MAX"));
        }
    }
}
