package io.varve.server;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keyspace notifications received by a subscriber: the events Redis names per command, on the keyspace and
 * keyevent channels of the right database, only for the classes enabled, only when a command changed
 * something, and "expired" when a key's time runs out. Each check ends with a marker event, so "nothing
 * else was published" is asserted by the marker arriving next, not by waiting.
 */
class KeyspaceNotificationsTest extends OneServerPerClass {

    private Lettuce client;
    private RedisCommands<String, String> r;
    private RedisClient subscriberClient;
    private StatefulRedisPubSubConnection<String, String> subscriber;
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();

    @BeforeEach
    void subscribe() {
        client = connect(ProtocolVersion.RESP2);
        r = client.sync();
        subscriberClient = Lettuce.client(Lettuce.uri(server.port()).build(), ProtocolVersion.RESP2);
        subscriber = subscriberClient.connectPubSub();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
                received.add(channel + " " + message);
            }
        });
        subscriber.sync().psubscribe("__key*__:*");
        received.clear(); // one instance serves every test of the class
    }

    @AfterEach
    void close() {
        r.configSet("notify-keyspace-events", "");
        subscriber.close();
        subscriberClient.shutdown(0, 1, TimeUnit.SECONDS);
        client.close();
    }

    /** The next {@code count} messages, in order. */
    private List<String> next(int count) throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String m = received.poll(10, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("only " + out + " arrived, expected " + count);
            }
            out.add(m);
        }
        return out;
    }

    private int markers;

    /** Asserts that nothing was published before a marker SET's event (string events must be enabled). */
    private void assertNothingBeforeMarker() throws InterruptedException {
        String marker = "marker-" + markers++;
        r.set(marker, "1");
        String first = next(1).get(0);
        assertTrue(first.equals("__keyevent@0__:set " + marker) || first.equals("__keyspace@0__:" + marker + " set"),
                "the marker's event came first, not " + first);
    }

    @Test
    void keyspaceAndKeyeventChannelsCarryTheEvent() throws Exception {
        r.configSet("notify-keyspace-events", "KEA");
        r.set("k", "v");
        assertEquals(List.of("__keyspace@0__:k set", "__keyevent@0__:set k"), next(2));
        r.del("k", "missing");
        assertEquals(List.of("__keyspace@0__:k del", "__keyevent@0__:del k"), next(2));
    }

    @Test
    void eachCommandPublishesRedisEventNames() throws Exception {
        r.configSet("notify-keyspace-events", "EA");
        r.set("s", "1", SetArgs.Builder.ex(100));
        assertEquals(List.of("__keyevent@0__:set s", "__keyevent@0__:expire s"), next(2));
        r.incrby("s", 2);
        r.append("s", "x");
        r.rename("s", "t");
        assertEquals(List.of("__keyevent@0__:incrby s", "__keyevent@0__:append s",
                "__keyevent@0__:rename_from s", "__keyevent@0__:rename_to t"), next(4));
        r.lpush("l", "a");
        r.rpop("l");
        assertEquals(List.of("__keyevent@0__:lpush l", "__keyevent@0__:rpop l", "__keyevent@0__:del l"), next(3));
        r.hset("h", "f", "v");
        r.hset("h", "f", "w");
        r.sadd("st", "m");
        r.zadd("z", 1, "m");
        r.zincrby("z", 1, "m");
        r.expire("h", 100);
        r.persist("h");
        r.pfadd("hll", "a");
        assertEquals(List.of("__keyevent@0__:hset h", "__keyevent@0__:hset h", "__keyevent@0__:sadd st",
                "__keyevent@0__:zadd z", "__keyevent@0__:zincr z", "__keyevent@0__:expire h",
                "__keyevent@0__:persist h", "__keyevent@0__:pfadd hll"), next(8));
        r.pexpire("t", -1);
        assertEquals(List.of("__keyevent@0__:del t"), next(1), "an expiry in the past is a deletion");
    }

    @Test
    void streamCommandsPublishTheirEventsAndANewConsumerOnlyWhenCreated() throws Exception {
        r.configSet("notify-keyspace-events", "K$t");
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("XGROUP", "CREATE", "mystream", "mygroup", "$", "MKSTREAM");
            c.call("XGROUP", "CREATECONSUMER", "mystream", "mygroup", "Bob");
            c.call("XADD", "mystream", "1", "field1", "A");
            c.call("XREADGROUP", "GROUP", "mygroup", "Alice", "STREAMS", "mystream", ">");
            c.call("XCLAIM", "mystream", "mygroup", "Mike", "0", "1-0", "FORCE");
            c.call("XGROUP", "DELCONSUMER", "mystream", "mygroup", "Lee"); // no such consumer: nothing
            c.call("XAUTOCLAIM", "mystream", "mygroup", "Bob", "0", "1-0"); // Bob exists: nothing
            c.call("XGROUP", "DELCONSUMER", "mystream", "mygroup", "Bob");
        }
        String channel = "__keyspace@0__:mystream ";
        assertEquals(List.of(channel + "xgroup-create", channel + "xgroup-createconsumer", channel + "xadd",
                channel + "xgroup-createconsumer", channel + "xgroup-createconsumer", channel + "xgroup-delconsumer"),
                next(6));
        assertNothingBeforeMarker();
    }

    @Test
    void commandsThatChangeNothingPublishNothing() throws Exception {
        r.configSet("notify-keyspace-events", "KEA");
        r.del("missing");
        r.setnx("marker-less", "1");
        next(2);
        r.setnx("marker-less", "2");
        r.srem("nothing", "x");
        r.expire("missing", 10);
        assertNothingBeforeMarker();
    }

    @Test
    void onlyEnabledClassesArePublished() throws Exception {
        r.configSet("notify-keyspace-events", "Eg");
        r.set("a", "1");
        r.lpush("l", "x");
        r.del("a");
        assertEquals(List.of("__keyevent@0__:del a"), next(1));
        r.configSet("notify-keyspace-events", "En");
        r.set("fresh", "1");
        assertEquals(List.of("__keyevent@0__:new fresh"), next(1));
        r.set("fresh", "2");
        r.configSet("notify-keyspace-events", "E$");
        assertNothingBeforeMarker();
    }

    @Test
    void expiredKeysAndOtherDatabasesAreReported() throws Exception {
        r.configSet("notify-keyspace-events", "Egx$");
        assertEquals("g$xE", r.configGet("notify-keyspace-events").get("notify-keyspace-events"),
                "Redis's canonical order");
        r.select(3);
        r.set("session", "x");
        r.pexpire("session", 1);
        server.advance(java.time.Duration.ofSeconds(1)); // the server's clock is the test's: the key's time passes
        assertEquals(List.of("__keyevent@3__:set session", "__keyevent@3__:expire session",
                "__keyevent@3__:expired session"), next(3));
        r.select(0);
    }

    @Test
    void aBadClassLetterIsRefused() {
        RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class,
                () -> r.configSet("notify-keyspace-events", "KEQ"));
        assertTrue(e.getMessage().contains("notify-keyspace-events"), e.getMessage());
    }
}
