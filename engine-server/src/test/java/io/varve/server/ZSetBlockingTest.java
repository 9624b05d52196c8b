package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ZPopArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP through Lettuce. A test acts on a blocked client only once the server's
 * registry shows it waiting, never after a sleep; futures are read with a bound only to detect hangs.
 */
class ZSetBlockingTest extends OneServerPerClass {

    private void awaitWaiting(String key, int count) throws InterruptedException {
        assertTrue(server.server.keyspace().blocking()
                .awaitWaiting(key.getBytes(StandardCharsets.UTF_8), count, 10_000), count + " waiting on " + key);
    }

    private static <T> T get(RedisFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void bzpopminIsServedByALaterZadd(ProtocolVersion p) throws Exception {
        try (Lettuce blocked = connect(p); Lettuce writer = connect(p)) {
            RedisFuture<KeyValue<String, ScoredValue<String>>> pop = blocked.async().bzpopmin(0, "other", "z");
            awaitWaiting("z", 1);
            awaitWaiting("other", 1);
            assertEquals(2, writer.sync().zadd("z", 2.0, "b", 1.5, "a"));
            KeyValue<String, ScoredValue<String>> got = get(pop);
            assertEquals("z", got.getKey());
            assertEquals(ScoredValue.just(1.5, "a"), got.getValue());
            assertEquals(List.of("b"), writer.sync().zrange("z", 0, -1));
            awaitWaiting("other", 0);
            assertEquals("PONG", blocked.sync().ping(), "the connection goes on after being served");
        }
    }

    @Test
    void storeCommandsWakeWaitersAndOrderIsFifo() throws Exception {
        try (Lettuce c1 = connect(ProtocolVersion.RESP2); Lettuce c2 = connect(ProtocolVersion.RESP3);
             Lettuce writer = connect(ProtocolVersion.RESP2)) {
            RedisFuture<KeyValue<String, ScoredValue<String>>> f1 = c1.async().bzpopmax(0, "dst");
            awaitWaiting("dst", 1);
            RedisFuture<KeyValue<String, List<ScoredValue<String>>>> f2 =
                    c2.async().bzmpop(0L, 5L, ZPopArgs.Builder.min(), "dst");
            awaitWaiting("dst", 2);
            RedisCommands<String, String> w = writer.sync();
            w.zadd("src", 1.0, "a", 2.0, "b", 3.0, "c");
            assertEquals(3, w.zunionstore("dst", "src"));
            assertEquals(ScoredValue.just(3, "c"), get(f1).getValue(), "the first to block is served first");
            KeyValue<String, List<ScoredValue<String>>> rest = get(f2);
            assertEquals("dst", rest.getKey());
            assertEquals(List.of(ScoredValue.just(1, "a"), ScoredValue.just(2, "b")), rest.getValue());
            assertEquals(0, w.exists("dst"));
        }
    }

    @Test
    void dataPresentAnswersAtOnceAndTimeoutsReplyNil() throws Exception {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.zadd("b", 1.0, "x", 2.0, "y");
            assertEquals(KeyValue.just("b", ScoredValue.just(2, "y")), r.bzpopmax(1, "a", "b"));
            assertEquals("b", r.bzmpop(1, ZPopArgs.Builder.min(), "a", "b").getKey());
            assertNull(r.bzpopmin(0.02, "a"));
            assertFalse(r.bzmpop(0.02, ZPopArgs.Builder.max(), "a").hasValue());
            awaitWaiting("a", 0);
            r.set("s", "v");
            var e = assertThrows(RedisCommandExecutionException.class, () -> r.bzpopmin(1, "s"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            e = assertThrows(RedisCommandExecutionException.class, () -> r.bzpopmin(-1, "a"));
            assertEquals("ERR timeout is negative", e.getMessage());
            assertEquals("PONG", r.ping());
        }
    }

    @Test
    void aWaiterOnAKeyThatBecomesAnotherTypeWaitsOn() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce writer = connect(ProtocolVersion.RESP2)) {
            RedisFuture<KeyValue<String, ScoredValue<String>>> pop = blocked.async().bzpopmin(0, "k");
            awaitWaiting("k", 1);
            writer.sync().rpush("k", "x");
            writer.sync().del("k");
            writer.sync().zadd("k", 1.0, "a");
            KeyValue<String, ScoredValue<String>> got = get(pop);
            assertEquals(ScoredValue.just(1.0, "a"), got.getValue(), "as Redis does, the list left it blocked");
        }
    }
}
