package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking commands beside MULTI/EXEC/WATCH, as Redis has them: clients blocked on keys a transaction fills
 * are served after its last command. A test acts on a blocked client only once the registry shows it
 * waiting; futures are read with a bound only to detect hangs.
 */
class BlockingTransactionsTest extends OneServerPerClass {

    private void awaitWaiting(String key, int count) throws InterruptedException {
        assertTrue(server.server.keyspace().blocking()
                .awaitWaiting(key.getBytes(StandardCharsets.UTF_8), count, 10_000), count + " waiting on " + key);
    }

    private static <T> T get(RedisFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void execServesBlockedClientsAfterItsLastCommand() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce tx = connect(ProtocolVersion.RESP2)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "l");
            awaitWaiting("l", 1);
            RedisCommands<String, String> r = tx.sync();
            r.multi();
            r.lpush("l", "x");
            r.llen("l");
            TransactionResult result = r.exec();
            assertEquals(List.of(1L, 1L), List.of(result.get(0), result.get(1)), "nobody popped inside EXEC");
            assertEquals(KeyValue.just("l", "x"), get(pop));
            assertEquals(0, r.llen("l"));
        }
    }

    @Test
    void aServedBlmoveMarksTheWatchersOfItsDestination() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce watcher = connect(ProtocolVersion.RESP2);
             Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            RedisFuture<String> move = blocked.async().blmove("src", "dst", LMoveArgs.Builder.leftLeft(), 0);
            awaitWaiting("src", 1);
            RedisCommands<String, String> w = watcher.sync();
            w.watch("dst");
            assertEquals(1, pusher.sync().lpush("src", "x"));
            assertEquals("x", get(move));
            w.multi();
            w.set("other", "1");
            assertTrue(w.exec().wasDiscarded(), "dst was written after WATCH");
        }
    }

    @Test
    void aServedPopMarksTheWatchersOfThePoppedKeyInItsDatabase() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce watcher = connect(ProtocolVersion.RESP2);
             Lettuce writer = connect(ProtocolVersion.RESP2)) {
            blocked.sync().select(2);
            RedisFuture<KeyValue<String, ScoredValue<String>>> pop = blocked.async().bzpopmin(0, "z");
            awaitWaiting("z", 1);
            RedisCommands<String, String> w = watcher.sync();
            w.select(2);
            w.watch("z");
            writer.sync().select(2);
            assertEquals(1, writer.sync().zadd("z", 1.0, "m"));
            assertEquals(KeyValue.just("z", ScoredValue.just(1.0, "m")), get(pop));
            w.multi();
            w.set("other", "1");
            assertTrue(w.exec().wasDiscarded(), "z was written after WATCH");
            writer.sync().flushall();
        }
    }

    @Test
    void aClientThatOnlyBlockedWritesNothingAWatcherWouldSee() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce watcher = connect(ProtocolVersion.RESP2);
             Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> w = watcher.sync();
            w.watch("k");
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "k");
            awaitWaiting("k", 1);
            w.multi();
            w.set("other", "1");
            TransactionResult result = w.exec();
            assertEquals(false, result.wasDiscarded(), "a BLPOP that waits changed nothing");
            assertEquals("OK", (Object) result.get(0));
            pusher.sync().rpush("k", "v");
            assertEquals(KeyValue.just("k", "v"), get(pop));
        }
    }
}
