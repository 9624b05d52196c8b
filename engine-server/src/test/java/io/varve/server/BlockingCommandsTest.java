package io.varve.server;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LMPopArgs;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.varve.server.ListCommandsTest.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking list pops through Lettuce. A test acts on a blocked client only after the server's registry shows
 * it waiting ({@code awaitWaiting}), never after a sleep; futures are read with a bound only to detect hangs.
 */
class BlockingCommandsTest extends OneServerPerClass {

    private void awaitWaiting(String key, int count) throws InterruptedException {
        assertTrue(server.server.keyspace().blocking()
                .awaitWaiting(key.getBytes(StandardCharsets.UTF_8), count, 10_000), count + " waiting on " + key);
    }

    private static <T> T get(RedisFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void blpopIsServedByALaterPush(ProtocolVersion p) throws Exception {
        try (Lettuce blocked = connect(p); Lettuce pusher = connect(p)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "a", "k");
            awaitWaiting("k", 1);
            awaitWaiting("a", 1);
            assertEquals(2, pusher.sync().rpush("k", "x", "y"));
            KeyValue<String, String> got = get(pop);
            assertEquals("k", got.getKey());
            assertEquals("x", got.getValue());
            assertEquals(List.of("y"), pusher.sync().lrange("k", 0, -1));
            awaitWaiting("a", 0);
            assertEquals("PONG", blocked.sync().ping(), "the connection goes on after being served");
        }
    }

    @Test
    void dataPresentAnswersAtOnceFromTheFirstNonEmptyKey() {
        try (Lettuce l = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> r = l.sync();
            r.rpush("b", "1", "2");
            r.rpush("c", "3");
            assertEquals(KeyValue.just("b", "1"), r.blpop(1, "a", "b", "c"));
            assertEquals(KeyValue.just("b", "2"), r.brpop(1, "a", "b", "c"));
            assertEquals(KeyValue.just("c", "3"), r.brpop(1, "b", "c"));
            r.set("s", "x");
            error(() -> r.blpop(1, "s", "c"), ListCommandsTest.WRONGTYPE);
        }
    }

    @Test
    void threeClientsAreServedInTheOrderTheyBlocked() throws Exception {
        try (Lettuce c1 = connect(ProtocolVersion.RESP2); Lettuce c2 = connect(ProtocolVersion.RESP2);
             Lettuce c3 = connect(ProtocolVersion.RESP3); Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            RedisFuture<KeyValue<String, String>> f1 = c1.async().brpop(0, "k");
            awaitWaiting("k", 1);
            RedisFuture<KeyValue<String, String>> f2 = c2.async().brpop(0, "k");
            awaitWaiting("k", 2);
            RedisFuture<KeyValue<String, String>> f3 = c3.async().brpop(0, "k");
            awaitWaiting("k", 3);
            assertTrue(pusher.sync().info("clients").contains("blocked_clients:3\r\n"));
            pusher.sync().rpush("k", "first");
            assertEquals("first", get(f1).getValue());
            awaitWaiting("k", 2);
            pusher.sync().rpush("k", "second", "third");
            assertEquals("third", get(f2).getValue(), "BRPOP takes from the tail");
            assertEquals("second", get(f3).getValue());
            assertEquals(0, pusher.sync().exists("k"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void timeoutRepliesNilAndAcceptsFractions(ProtocolVersion p) throws Exception {
        try (Lettuce l = connect(p)) {
            assertNull(l.sync().blpop(0.05, "k"));
            assertNull(l.sync().brpoplpush(0.01, "k", "d"));
            assertNull(l.sync().blmove("k", "d", LMoveArgs.Builder.leftLeft(), 0.01));
            assertNull(l.sync().blmpop(0.01, LMPopArgs.Builder.left(), "k"));
            awaitWaiting("k", 0);
            assertEquals("PONG", l.sync().ping());
            error(() -> l.sync().blpop(-1, "k"), "ERR timeout is negative");
            error(() -> l.sync().dispatch(CommandType.BLPOP, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey("k").add("x")), "ERR timeout is not a float or out of range");
        }
    }

    @Test
    void commandsPipelinedBehindABlockedOneWaitForIt() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "k");
            RedisFuture<Long> length = blocked.async().llen("k");
            awaitWaiting("k", 1);
            pusher.sync().rpush("k", "a", "b");
            assertEquals("a", get(pop).getValue());
            assertEquals(1, get(length), "the LLEN ran after the BLPOP was served");
        }
    }

    @Test
    void repliesBeforeAndAfterABlockedCommandKeepTheirOrder() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP3); Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            blocked.connection.setAutoFlushCommands(false);
            RedisFuture<String> set = blocked.async().set("x", "1");
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "k");
            RedisFuture<String> get = blocked.async().get("x");
            blocked.connection.flushCommands();
            assertEquals("OK", get(set), "the reply before the blocked command is not held back");
            awaitWaiting("k", 1);
            pusher.sync().set("x", "2");
            pusher.sync().rpush("k", "v");
            assertEquals(KeyValue.just("k", "v"), get(pop));
            assertEquals("2", get(get), "the GET ran only after the BLPOP was served");
        }
    }

    @Test
    void shutdownDoesNotWaitForBlockedClients(@TempDir Path dir) throws Exception {
        TestServer own = TestServer.start(dir);
        RedisClient client = Lettuce.client(Lettuce.uri(own.port()).build(), ProtocolVersion.RESP2);
        // Without reconnecting, Lettuce fails the pending BLPOP as soon as the server closes the connection.
        client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).autoReconnect(false).build());
        try (StatefulRedisConnection<String, String> blocked = client.connect()) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "k");
            assertTrue(own.server.keyspace().blocking().awaitWaiting("k".getBytes(), 1, 10_000));
            CompletableFuture.runAsync(own::close).get(20, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> pop.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof RedisException, e.toString());
        } finally {
            own.close();
            client.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDisconnectedClientStopsWaitingAndTakesNothing() throws Exception {
        try (Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            Lettuce blocked = connect(ProtocolVersion.RESP2);
            blocked.async().blpop(0, "k");
            awaitWaiting("k", 1);
            blocked.close();
            awaitWaiting("k", 0);
            pusher.sync().rpush("k", "kept");
            assertEquals(List.of("kept"), pusher.sync().lrange("k", 0, -1));
        }
    }

    @Test
    void blmoveIsServedAndItsPushServesTheNextWaiter() throws Exception {
        try (Lettuce mover = connect(ProtocolVersion.RESP2); Lettuce popper = connect(ProtocolVersion.RESP3);
             Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            RedisFuture<String> move = mover.async().blmove("src", "dst", LMoveArgs.Builder.rightLeft(), 0);
            awaitWaiting("src", 1);
            RedisFuture<KeyValue<String, String>> pop = popper.async().blpop(0, "dst");
            awaitWaiting("dst", 1);
            pusher.sync().rpush("src", "a", "b");
            assertEquals("b", get(move));
            assertEquals(KeyValue.just("dst", "b"), get(pop));
            assertEquals(List.of("a"), pusher.sync().lrange("src", 0, -1));
            assertEquals(0, pusher.sync().exists("dst"));
            assertEquals("a", pusher.sync().brpoplpush(1, "src", "dst"), "data present: no blocking");
            assertEquals(List.of("a"), pusher.sync().lrange("dst", 0, -1));
        }
    }

    @Test
    void aBlockedMoveWhoseDestinationChangedTypeGetsWrongType() throws Exception {
        try (Lettuce mover = connect(ProtocolVersion.RESP2); Lettuce other = connect(ProtocolVersion.RESP2)) {
            RedisFuture<String> move = mover.async().blmove("src", "dst", LMoveArgs.Builder.leftLeft(), 0);
            awaitWaiting("src", 1);
            other.sync().set("dst", "a string");
            other.sync().rpush("src", "x");
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(move));
            assertEquals(ListCommandsTest.WRONGTYPE, e.getCause().getMessage());
            assertEquals(List.of("x"), other.sync().lrange("src", 0, -1), "nothing was moved");
            awaitWaiting("src", 0);
        }
    }

    @Test
    void brpoplpushAndBlmpopAreServed() throws Exception {
        try (Lettuce a = connect(ProtocolVersion.RESP2); Lettuce b = connect(ProtocolVersion.RESP2);
             Lettuce pusher = connect(ProtocolVersion.RESP2)) {
            RedisFuture<String> move = a.async().brpoplpush(0, "src", "dst");
            awaitWaiting("src", 1);
            pusher.sync().lpush("src", "x");
            assertEquals("x", get(move));
            assertEquals(List.of("x"), pusher.sync().lrange("dst", 0, -1));
            RedisFuture<KeyValue<String, List<String>>> mpop = b.async().blmpop(0, LMPopArgs.Builder.right().count(2),
                    "m1", "m2");
            awaitWaiting("m2", 1);
            pusher.sync().rpush("m2", "1", "2", "3");
            KeyValue<String, List<String>> got = get(mpop);
            assertEquals("m2", got.getKey());
            assertEquals(List.of("3", "2"), got.getValue());
            pusher.sync().rpush("m1", "9");
            assertEquals(KeyValue.just("m1", List.of("9")), pusher.sync().blmpop(1, LMPopArgs.Builder.left(), "m1", "m2"));
        }
    }

    @Test
    void renameOntoTheKeyServesWaitersAndOtherTypesDoNot() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce other = connect(ProtocolVersion.RESP2)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "k");
            awaitWaiting("k", 1);
            other.sync().set("k", "a string");
            other.sync().rename("k", "elsewhere");
            other.sync().sadd("tmp", "m");
            other.sync().rename("tmp", "k");
            assertEquals(1, server.server.keyspace().blocking().waitingOn("k".getBytes()),
                    "a set under the key does not serve a list pop");
            other.sync().del("k");
            other.sync().rpush("tmp", "v");
            other.sync().rename("tmp", "k");
            assertEquals(KeyValue.just("k", "v"), get(pop));
            assertEquals(0, other.sync().exists("k"));
        }
    }
}
