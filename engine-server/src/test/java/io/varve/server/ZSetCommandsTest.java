package io.varve.server;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScoredValueScanCursor;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.ZAggregateArgs;
import io.lettuce.core.ZPopArgs;
import io.lettuce.core.ZStoreArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sorted-set commands through Lettuce, over RESP2 (flat arrays, scores as bulk strings) and RESP3. */
class ZSetCommandsTest extends OneServerPerClass {

    private static List<String> members(List<ScoredValue<String>> scored) {
        return scored.stream().map(ScoredValue::getValue).toList();
    }

    private static Map<String, Double> asMap(List<ScoredValue<String>> scored) {
        Map<String, Double> m = new HashMap<>();
        scored.forEach(s -> m.put(s.getValue(), s.getScore()));
        return m;
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void addScoreRemove(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals(3, r.zadd("z", 1.0, "a", 2.0, "b", 3.0, "c"));
            assertEquals(0, r.zadd("z", 5.0, "a"), "an update adds nothing");
            assertEquals(1, r.zadd("z", ZAddArgs.Builder.ch(), 6.0, "a"), "CH counts changed scores");
            assertEquals(0, r.zadd("z", ZAddArgs.Builder.ch(), 6.0, "a"), "same score: no change");
            assertEquals(6.0, r.zscore("z", "a"));
            assertNull(r.zscore("z", "nope"));
            assertNull(r.zscore("missing", "a"));
            assertEquals(3, r.zcard("z"));
            assertEquals(0, r.zcard("missing"));
            assertEquals(0, r.zadd("z", ZAddArgs.Builder.nx(), 100.0, "a"));
            assertEquals(6.0, r.zscore("z", "a"), "NX never updates");
            assertEquals(0, r.zadd("z", ZAddArgs.Builder.xx(), 1.0, "new"));
            assertNull(r.zscore("z", "new"), "XX never adds");
            assertEquals(0, r.zadd("z", ZAddArgs.Builder.gt(), 1.0, "a"));
            assertEquals(6.0, r.zscore("z", "a"), "GT keeps the higher score");
            r.zadd("z", ZAddArgs.Builder.gt(), 7.0, "a");
            assertEquals(7.0, r.zscore("z", "a"));
            r.zadd("z", ZAddArgs.Builder.lt(), 8.0, "a");
            assertEquals(7.0, r.zscore("z", "a"), "LT keeps the lower score");
            assertEquals(1, r.zadd("z", ZAddArgs.Builder.gt(), 1.0, "d"), "GT still adds new members");
            assertEquals(10.0, r.zaddincr("z", 3, "a"));
            assertEquals(2.5, r.zaddincr("z", 2.5, "fresh"));
            assertNull(r.zaddincr("z", ZAddArgs.Builder.nx(), 1, "a"), "INCR that does not apply is nil");
            assertNull(r.zaddincr("z", ZAddArgs.Builder.xx(), 1, "absent"));
            assertEquals(12.5, r.zincrby("z", 2.5, "a"));
            assertEquals(-1.0, r.zincrby("z", -1, "brandnew"));
            assertEquals(List.of(12.5, 2.0), r.zmscore("z", "a", "b"));
            List<Double> withMissing = r.zmscore("z", "a", "zz");
            assertEquals(12.5, withMissing.get(0));
            assertNull(withMissing.get(1));
            assertEquals(2, r.zrem("z", "a", "b", "a", "nope"));
            assertEquals(0, r.zrem("missing", "a"));
            r.zrem("z", "c", "d", "fresh", "brandnew");
            assertEquals(0, r.exists("z"), "a sorted set whose last member goes is deleted");
            assertEquals("none", r.type("z"));
            r.zadd("z", Double.NEGATIVE_INFINITY, "lo", Double.POSITIVE_INFINITY, "hi");
            if (p == ProtocolVersion.RESP3) { // Lettuce's RESP2 double parser does not read Redis's "inf"
                assertEquals(Double.POSITIVE_INFINITY, r.zscore("z", "hi"));
            }
            assertEquals(List.of("lo", "hi"), r.zrange("z", 0, -1));
            assertEquals("zset", r.type("z"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void errorsUseRedisWords(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.set("s", "v");
            var e = assertThrows(RedisCommandExecutionException.class, () -> r.zadd("s", 1.0, "a"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            assertThrows(RedisCommandExecutionException.class, () -> r.zrange("s", 0, -1));
            assertThrows(RedisCommandExecutionException.class, () -> r.zscore("s", "a"));
            r.zadd("z", Double.POSITIVE_INFINITY, "a");
            e = assertThrows(RedisCommandExecutionException.class,
                    () -> r.zincrby("z", Double.NEGATIVE_INFINITY, "a"));
            assertEquals("ERR resulting score is not a number (NaN)", e.getMessage());
            e = assertThrows(RedisCommandExecutionException.class,
                    () -> r.zaddincr("z", Double.NEGATIVE_INFINITY, "a"));
            assertEquals("ERR resulting score is not a number (NaN)", e.getMessage());
            assertEquals(List.of("a"), r.zrangebyscore("z", Range.create(Double.MAX_VALUE, Double.POSITIVE_INFINITY)),
                    "a failed increment changes nothing");
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void rangesByRankScoreAndLex(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.zadd("z", 1.0, "a", 2.0, "b", 2.0, "c", 3.0, "d", 4.5, "e");
            assertEquals(List.of("a", "b", "c", "d", "e"), r.zrange("z", 0, -1));
            assertEquals(List.of("d", "e"), r.zrange("z", -2, 100));
            assertEquals(List.of(), r.zrange("z", 3, 1));
            assertEquals(List.of(), r.zrange("missing", 0, -1));
            assertEquals(List.of("e", "d"), r.zrevrange("z", 0, 1));
            List<ScoredValue<String>> ws = r.zrangeWithScores("z", 3, 4);
            assertEquals(List.of(ScoredValue.just(3, "d"), ScoredValue.just(4.5, "e")), ws);
            assertEquals(List.of(ScoredValue.just(4.5, "e")), r.zrevrangeWithScores("z", 0, 0));
            assertEquals(List.of("b", "c", "d"), r.zrangebyscore("z", Range.create(2, 3)));
            assertEquals(List.of("d"), r.zrangebyscore("z", Range.from(Range.Boundary.excluding(2),
                    Range.Boundary.including(3))));
            assertEquals(List.of("c", "d"), r.zrangebyscore("z", Range.create(1, 10), Limit.create(2, 2)));
            assertEquals(List.of("e", "d", "c"), r.zrevrangebyscore("z", Range.create(2, 10), Limit.create(0, 3)));
            assertEquals(List.of(ScoredValue.just(4.5, "e")),
                    r.zrangebyscoreWithScores("z", Range.from(Range.Boundary.excluding(3), Range.Boundary.unbounded())));
            assertEquals(3, r.zcount("z", Range.create(2, 3)));
            assertEquals(5, r.zcount("z", Range.unbounded()));
            assertEquals(0, r.zcount("z", Range.from(Range.Boundary.excluding(2), Range.Boundary.excluding(2))));
            r.zadd("lex", 0.0, "a", 0.0, "b", 0.0, "c", 0.0, "d", 0.0, "e");
            assertEquals(List.of("b", "c"), r.zrangebylex("lex", Range.create("b", "c")));
            assertEquals(List.of("c", "d", "e"), r.zrangebylex("lex",
                    Range.from(Range.Boundary.excluding("b"), Range.Boundary.unbounded())));
            assertEquals(List.of("e", "d"), r.zrevrangebylex("lex", Range.create("a", "z"), Limit.create(0, 2)));
            assertEquals(3, r.zlexcount("lex", Range.create("b", "d")));
            assertEquals(5, r.zlexcount("lex", Range.unbounded()));
            assertEquals(0, r.zrank("z", "a"));
            assertEquals(4, r.zrank("z", "e"));
            assertEquals(0, r.zrevrank("z", "e"));
            assertNull(r.zrank("z", "nope"));
            if (p == ProtocolVersion.RESP3) { // Lettuce reads RESP2's [rank, "score"] as a value (ZSetRepliesTest checks it)
                assertEquals(ScoredValue.just(3, 3L), r.zrankWithScore("z", "d"));
                assertEquals(ScoredValue.just(4.5, 0L), r.zrevrankWithScore("z", "e"));
            }
            assertFalse(r.zrankWithScore("z", "nope").hasValue());
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void rangeStoreAndRemoveRanges(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.zadd("z", 1.0, "a", 2.0, "b", 3.0, "c", 4.0, "d", 5.0, "e");
            assertEquals(2, r.zrangestore("dst", "z", Range.create(1L, 2L)));
            assertEquals(List.of(ScoredValue.just(2, "b"), ScoredValue.just(3, "c")), r.zrangeWithScores("dst", 0, -1));
            assertEquals(3, r.zrangestorebyscore("dst", "z", Range.create(3, 10), Limit.unlimited()));
            assertEquals(List.of("c", "d", "e"), r.zrange("dst", 0, -1), "the destination is replaced");
            assertEquals(0, r.zrangestorebyscore("dst", "z", Range.create(100, 200), Limit.unlimited()));
            assertEquals(0, r.exists("dst"), "an empty result deletes the destination");
            r.set("str", "x");
            assertEquals(1, r.zrangestore("str", "z", Range.create(0L, 0L)));
            assertEquals("zset", r.type("str"), "any type is overwritten");
            assertEquals(2, r.zremrangebyrank("z", 0, 1));
            assertEquals(List.of("c", "d", "e"), r.zrange("z", 0, -1));
            assertEquals(1, r.zremrangebyscore("z", Range.from(Range.Boundary.excluding(3), Range.Boundary.including(4))));
            assertEquals(List.of("c", "e"), r.zrange("z", 0, -1));
            r.zadd("lex", 0.0, "a", 0.0, "b", 0.0, "c");
            assertEquals(2, r.zremrangebylex("lex", Range.create("a", "b")));
            assertEquals(List.of("c"), r.zrange("lex", 0, -1));
            assertEquals(2, r.zremrangebyscore("z", Range.unbounded()));
            assertEquals(0, r.exists("z"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void pops(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.zadd("z", 1.0, "a", 2.0, "b", 3.0, "c", 4.0, "d");
            assertEquals(ScoredValue.just(1, "a"), r.zpopmin("z"));
            assertEquals(ScoredValue.just(4, "d"), r.zpopmax("z"));
            assertEquals(List.of(ScoredValue.just(2, "b"), ScoredValue.just(3, "c")), r.zpopmin("z", 5));
            assertEquals(0, r.exists("z"));
            assertFalse(r.zpopmin("z").hasValue());
            assertEquals(List.of(), r.zpopmax("z", 2));
            r.zadd("y", 1.0, "a", 2.0, "b", 3.0, "c");
            var popped = r.zmpop(ZPopArgs.Builder.max(), "missing", "y");
            assertEquals("y", popped.getKey());
            assertEquals(ScoredValue.just(3, "c"), popped.getValue());
            var many = r.zmpop(2, ZPopArgs.Builder.min(), "y");
            assertEquals(List.of(ScoredValue.just(1, "a"), ScoredValue.just(2, "b")), many.getValue());
            assertFalse(r.zmpop(ZPopArgs.Builder.min(), "y", "missing").hasValue());
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void unionInterDiff(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.zadd("a", 1.0, "x", 2.0, "y", 3.0, "z");
            r.zadd("b", 10.0, "y", 20.0, "z", 30.0, "w");
            assertEquals(List.of("x", "y", "z", "w"), r.zunion("a", "b"));
            assertEquals(Map.of("x", 1.0, "y", 12.0, "z", 23.0, "w", 30.0), asMap(r.zunionWithScores("a", "b")));
            assertEquals(Map.of("x", 2.0, "y", 14.0, "z", 26.0, "w", 30.0),
                    asMap(r.zunionWithScores(ZAggregateArgs.Builder.weights(2, 1), "a", "b")));
            assertEquals(Map.of("x", 1.0, "y", 10.0, "z", 20.0, "w", 30.0),
                    asMap(r.zunionWithScores(ZAggregateArgs.Builder.max(), "a", "b")));
            assertEquals(List.of(ScoredValue.just(2, "y"), ScoredValue.just(3, "z")),
                    r.zinterWithScores(ZAggregateArgs.Builder.min(), "a", "b"));
            assertEquals(List.of("y", "z"), r.zinter("a", "b"));
            assertEquals(List.of(), r.zinter("a", "missing"));
            assertEquals(List.of("x"), r.zdiff("a", "b"));
            assertEquals(List.of(ScoredValue.just(1, "x")), r.zdiffWithScores("a", "b", "missing"));
            assertEquals(4, r.zunionstore("u", "a", "b"));
            assertEquals(Map.of("x", 1.0, "y", 12.0, "z", 23.0, "w", 30.0), asMap(r.zrangeWithScores("u", 0, -1)));
            assertEquals(2, r.zinterstore("i", ZStoreArgs.Builder.weights(1, 0).max(), "a", "b"));
            assertEquals(List.of(ScoredValue.just(2, "y"), ScoredValue.just(3, "z")), r.zrangeWithScores("i", 0, -1));
            assertEquals(1, r.zdiffstore("d", "a", "b"));
            assertEquals(List.of("x"), r.zrange("d", 0, -1));
            assertEquals(0, r.zdiffstore("d", "a", "a"));
            assertEquals(0, r.exists("d"));
            assertEquals(2, r.zintercard("a", "b"));
            assertEquals(1, r.zintercard(1, "a", "b"));
            r.zadd("inf", Double.POSITIVE_INFINITY, "x");
            r.zadd("ninf", Double.NEGATIVE_INFINITY, "x");
            assertEquals(List.of(ScoredValue.just(0, "x")), r.zunionWithScores("inf", "ninf"),
                    "inf + -inf aggregates to 0, as in Redis");
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void randomMembersAndScan(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            Set<String> all = new HashSet<>();
            for (int i = 0; i < 50; i++) {
                r.zadd("z", (double) i, "m" + i);
                all.add("m" + i);
            }
            assertTrue(all.contains(r.zrandmember("z")));
            assertNull(r.zrandmember("missing"));
            List<String> distinct = r.zrandmember("z", 10);
            assertEquals(10, new HashSet<>(distinct).size(), "a positive count picks distinct members");
            assertTrue(all.containsAll(distinct));
            assertEquals(all, new HashSet<>(r.zrandmember("z", 1000)));
            assertEquals(200, r.zrandmember("z", -200).size(), "a negative count may repeat");
            for (ScoredValue<String> s : r.zrandmemberWithScores("z", 5)) {
                assertEquals(Double.parseDouble(s.getValue().substring(1)), s.getScore());
            }
            assertEquals(List.of(), r.zrandmember("z", 0));
            Map<String, Double> seen = new HashMap<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            int calls = 0;
            do {
                ScoredValueScanCursor<String> page = r.zscan("z", cursor, ScanArgs.Builder.limit(7));
                for (ScoredValue<String> s : page.getValues()) {
                    assertNull(seen.put(s.getValue(), s.getScore()), "returned twice: " + s.getValue());
                }
                cursor = page;
                assertTrue(++calls < 100);
            } while (!cursor.isFinished());
            assertEquals(50, seen.size());
            assertEquals(7.0, seen.get("m7"));
            var matched = r.zscan("z", ScanCursor.INITIAL, ScanArgs.Builder.matches("m4*").limit(1000));
            assertEquals(List.of("m4", "m40", "m41", "m42", "m43", "m44", "m45", "m46", "m47", "m48", "m49"),
                    members(matched.getValues()));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void keyCommandsCoverSortedSets(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.zadd("z", 1.0, "a", 2.0, "b");
            assertEquals("zset", r.type("z"));
            r.hset("h", "f", "v");
            var page = r.scan(ScanCursor.INITIAL, KeyScanArgs.Builder.type("zset").limit(100));
            assertEquals(List.of("z"), page.getKeys());
            r.rename("z", "z2");
            assertEquals(List.of(ScoredValue.just(1, "a"), ScoredValue.just(2, "b")), r.zrangeWithScores("z2", 0, -1));
            assertEquals(0, r.exists("z"));
            assertTrue(r.expire("z2", 100));
            assertTrue(r.ttl("z2") > 0);
            server.advance(java.time.Duration.ofSeconds(101));
            assertEquals(0, r.exists("z2"));
            assertEquals(0, r.zcard("z2"));
            assertEquals(1, r.zadd("z2", 5.0, "c"));
            assertEquals(List.of("c"), r.zrange("z2", 0, -1), "an expired set's members never reappear");
            assertEquals(1, r.del("z2"));
            assertEquals(1, r.zadd("z2", 6.0, "d"));
            assertEquals(List.of("d"), r.zrange("z2", 0, -1), "a deleted set's members never reappear");
            r.set("z2", "now a string");
            r.del("z2");
            r.zadd("z2", 7.0, "e");
            assertEquals(List.of(ScoredValue.just(7, "e")), r.zrangeWithScores("z2", 0, -1));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void largeSetRangesFromEitherEnd(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            List<ScoredValue<String>> batch = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                batch.add(ScoredValue.just(i, String.format("m%05d", i)));
            }
            r.zadd("big", batch.toArray(ScoredValue[]::new));
            assertEquals(2000, r.zcard("big"));
            assertEquals(List.of("m01998", "m01999"), r.zrange("big", -2, -1));
            assertEquals(List.of("m01999", "m01998"), r.zrevrange("big", 0, 1));
            assertEquals(List.of("m00001", "m00000"), r.zrevrange("big", -2, -1));
            assertEquals(100, r.zrange("big", 1000, 1099).size());
            assertEquals("m01000", r.zrange("big", 1000, 1099).get(0));
            assertEquals(1500, r.zrank("big", "m01500"));
            assertEquals(499, r.zrevrank("big", "m01500"));
        }
    }
}
