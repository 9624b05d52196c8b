package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocked clients wait for a key of the database they selected, as in Redis: a write to the same name in
 * another database does not serve them; SWAPDB serves those whose database now holds data for their key
 * and leaves them in the database they selected; MOVE into their database serves them. A test acts on a
 * blocked client only once the registry shows it waiting; futures are read with a bound only to detect hangs.
 */
class BlockingDatabasesTest extends OneServerPerClass {

    private void awaitWaiting(String key, int count) throws InterruptedException {
        assertTrue(server.server.keyspace().blocking()
                .awaitWaiting(key.getBytes(StandardCharsets.UTF_8), count, 10_000), count + " waiting on " + key);
    }

    private static <T> T get(RedisFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    /** A client on an emptied server that has selected {@code database}. */
    private Lettuce client(int database) {
        Lettuce l = connect(ProtocolVersion.RESP2);
        l.sync().flushall();
        l.sync().select(database);
        return l;
    }

    @Test
    void aPushInAnotherDatabaseDoesNotServeABlockedListPop() throws Exception {
        try (Lettuce blocked = client(1); Lettuce db0 = client(0); Lettuce db1 = client(1)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "l");
            awaitWaiting("l", 1);
            assertEquals(1, db0.sync().lpush("l", "x"));
            assertEquals(List.of("x"), db0.sync().lrange("l", 0, -1), "database 0's list is left alone");
            assertEquals(1, db1.sync().lpush("l", "y"));
            assertEquals(KeyValue.just("l", "y"), get(pop));
            assertEquals(List.of("x"), db0.sync().lrange("l", 0, -1));
            assertEquals(0, db1.sync().llen("l"));
        }
    }

    @Test
    void aZaddInAnotherDatabaseDoesNotServeABlockedZsetPop() throws Exception {
        try (Lettuce blocked = client(1); Lettuce db0 = client(0); Lettuce db1 = client(1)) {
            RedisFuture<KeyValue<String, ScoredValue<String>>> pop = blocked.async().bzpopmin(0, "z");
            awaitWaiting("z", 1);
            assertEquals(1, db0.sync().zadd("z", 1.0, "a"));
            assertEquals(1, db0.sync().zcard("z"), "database 0's sorted set is left alone");
            assertEquals(1, db1.sync().zadd("z", 2.0, "b"));
            assertEquals(KeyValue.just("z", ScoredValue.just(2.0, "b")), get(pop));
            assertEquals(List.of("a"), db0.sync().zrange("z", 0, -1));
        }
    }

    @Test
    void swapdbServesAWaiterWhoseDatabaseNowHoldsItsKey() throws Exception {
        try (Lettuce blocked = client(1); Lettuce db0 = client(0); Lettuce db1 = client(1)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "l");
            awaitWaiting("l", 1);
            assertEquals(2, db0.sync().rpush("l", "x", "y"));
            assertEquals(2, db0.sync().llen("l"), "not served from database 0");
            assertEquals("OK", db0.sync().swapdb(0, 1));
            assertEquals(KeyValue.just("l", "x"), get(pop));
            assertEquals(List.of("y"), db1.sync().lrange("l", 0, -1));
            assertEquals(0, db0.sync().llen("l"));
        }
    }

    @Test
    void aWaiterStaysInTheDatabaseItSelectedAcrossSwapdb() throws Exception {
        try (Lettuce blocked = client(0); Lettuce db0 = client(0); Lettuce db1 = client(1)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "w");
            awaitWaiting("w", 1);
            db1.sync().set("other", "1");
            assertEquals("OK", db0.sync().swapdb(0, 1));
            assertEquals(1, db1.sync().rpush("w", "stays"), "database 1 now holds what database 0 held");
            assertEquals(1, db1.sync().llen("w"), "the waiter selected database 0, not its old contents");
            assertEquals(1, db0.sync().rpush("w", "z"));
            assertEquals(KeyValue.just("w", "z"), get(pop));
            assertEquals("1", db0.sync().get("other"));
        }
    }

    @Test
    void moveIntoTheWaitersDatabaseServesIt() throws Exception {
        try (Lettuce blocked = client(1); Lettuce db0 = client(0); Lettuce db1 = client(1)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "m");
            awaitWaiting("m", 1);
            assertEquals(2, db0.sync().rpush("m", "a", "b"));
            assertEquals(2, db0.sync().llen("m"), "not served from database 0");
            assertTrue(db0.sync().move("m", 1));
            assertEquals(KeyValue.just("m", "a"), get(pop));
            assertEquals(List.of("b"), db1.sync().lrange("m", 0, -1));
            assertEquals(0, db0.sync().exists("m"));
        }
    }
}
