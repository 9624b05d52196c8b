package io.varve.server;

import io.lettuce.core.RedisClient;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Publish/subscribe over RESP2 and RESP3, subscriber mode, PUBSUB introspection, slow subscribers. */
class PubSubTest {

    private static final String NOT_ALLOWED = "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
            + "PING / QUIT / RESET are allowed in this context";

    @TempDir
    Path dir;

    @Test
    void resp2SubscriberModeAndMessages() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient sub = RespClient.connect(server.port());
             RespClient pub = RespClient.connect(server.port())) {
            sub.send("SUBSCRIBE", "a", "b");
            assertEquals(List.of("subscribe", "a", 1L), sub.read());
            assertEquals(List.of("subscribe", "b", 2L), sub.read());
            assertEquals(1L, pub.call("PUBLISH", "a", "hello"));
            assertEquals(List.of("message", "a", "hello"), sub.read());
            assertEquals(new RespClient.Err(NOT_ALLOWED.formatted("get")), sub.call("GET", "k"));
            assertEquals(List.of("pong", ""), sub.call("PING"));
            assertEquals(List.of("pong", "hi"), sub.call("PING", "hi"));

            assertEquals(List.of("psubscribe", "h*", 3L), sub.call("PSUBSCRIBE", "h*"));
            assertEquals(1L, pub.call("PUBLISH", "hx", "m"));
            assertEquals(List.of("pmessage", "h*", "hx", "m"), sub.read());
            assertEquals(0L, pub.call("PUBLISH", "nobody", "m"));

            assertEquals(Set.of("a", "b"), Set.copyOf((List<?>) pub.call("PUBSUB", "CHANNELS")));
            assertEquals(List.of("a"), pub.call("PUBSUB", "CHANNELS", "a*"));
            assertEquals(List.of("a", 1L, "c", 0L), pub.call("PUBSUB", "NUMSUB", "a", "c"));
            assertEquals(1L, pub.call("PUBSUB", "NUMPAT"));

            sub.send("UNSUBSCRIBE");
            assertEquals(List.of("unsubscribe", "a", 2L), sub.read());
            assertEquals(List.of("unsubscribe", "b", 1L), sub.read());
            assertEquals(List.of("punsubscribe", "h*", 0L), sub.call("PUNSUBSCRIBE"));
            assertEquals(Arrays.asList("unsubscribe", null, 0L), sub.call("UNSUBSCRIBE"));
            assertEquals("PONG", sub.call("PING"), "out of subscriber mode");
            assertEquals(List.of(), pub.call("PUBSUB", "CHANNELS"));
        }
    }

    @Test
    void resp3PushesAndCommandsWhileSubscribed() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient sub = RespClient.connect(server.port());
             RespClient pub = RespClient.connect(server.port())) {
            sub.call("HELLO", "3");
            assertEquals(List.of("subscribe", "a", 1L), sub.call("SUBSCRIBE", "a"));
            assertEquals("OK", sub.call("SET", "k", "v"), "RESP3 has no subscriber mode");
            assertEquals(1L, pub.call("PUBLISH", "a", "x"));
            assertEquals(List.of("message", "a", "x"), sub.read());
            assertEquals("v", sub.call("GET", "k"));
        }
    }

    @Test
    void resetLeavesSubscriberModeTransactionsAndDatabase() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port());
             RespClient pub = RespClient.connect(server.port())) {
            c.call("SELECT", "3");
            c.call("SET", "k", "in3");
            assertEquals(List.of("subscribe", "a", 1L), c.call("SUBSCRIBE", "a"));
            assertEquals("RESET", c.call("RESET"));
            assertEquals(0L, pub.call("PUBLISH", "a", "x"), "unsubscribed");
            assertEquals(null, c.call("GET", "k"), "back in database 0");
            c.call("MULTI");
            c.call("SET", "k", "queued");
            assertEquals("RESET", c.call("RESET"));
            assertEquals(new RespClient.Err("ERR EXEC without MULTI"), c.call("EXEC"));
            assertEquals(null, c.call("GET", "k"));
        }
    }

    @Test
    void shardChannels() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient sub = RespClient.connect(server.port());
             RespClient pub = RespClient.connect(server.port())) {
            assertEquals(List.of("ssubscribe", "s", 1L), sub.call("SSUBSCRIBE", "s"));
            assertEquals(0L, pub.call("PUBLISH", "s", "x"), "shard channels are their own namespace");
            assertEquals(1L, pub.call("SPUBLISH", "s", "y"));
            assertEquals(List.of("smessage", "s", "y"), sub.read());
            assertEquals(List.of("s"), pub.call("PUBSUB", "SHARDCHANNELS"));
            assertEquals(List.of("s", 1L), pub.call("PUBSUB", "SHARDNUMSUB", "s"));
            assertEquals(List.of("sunsubscribe", "s", 0L), sub.call("SUNSUBSCRIBE"));
        }
    }

    @Test
    void closedSubscriberIsForgotten() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient pub = RespClient.connect(server.port())) {
            try (RespClient sub = RespClient.connect(server.port())) {
                assertEquals(List.of("subscribe", "a", 1L), sub.call("SUBSCRIBE", "a"));
            }
            assertTrue(publishUntilNobodyListens(pub, 100_000), "the closed subscriber was dropped");
        }
    }

    /**
     * A subscriber that never reads is disconnected once the messages waiting for it reach the hard limit, and
     * the publisher keeps being answered.
     */
    @Test
    void slowSubscriberIsDisconnectedAtTheOutputBufferLimit() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("client-output-buffer-limit", "pubsub 1mb 512kb 60"));
             RespClient pub = RespClient.connect(server.port())) {
            Socket socket = new Socket();
            socket.setReceiveBufferSize(16 << 10);
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
            try (RespClient sub = new RespClient(socket)) {
                assertEquals(List.of("subscribe", "big", 1L), sub.call("SUBSCRIBE", "big"));
                String payload = "p".repeat(16 << 10);
                long published = 0;
                // Far more than kernel buffers plus the limit can hold: the server must give up on the reader.
                while (published < 20_000 && (Long) pub.call("PUBLISH", "big", payload) == 1L) {
                    published++;
                }
                assertTrue(published < 20_000, "the subscriber was disconnected");
                assertEquals("PONG", pub.call("PING"));
                assertEquals(List.of("big", 0L), pub.call("PUBSUB", "NUMSUB", "big"));
            }
            try (RespClient other = RespClient.connect(server.port())) {
                assertTrue(other.infoStat("client_output_buffer_limit_disconnections") >= 1);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void lettucePubSub(ProtocolVersion p) throws Exception {
        try (TestServer server = TestServer.start(dir); Lettuce pub = Lettuce.connect(server.port(), p)) {
            RedisClient client = Lettuce.client(Lettuce.uri(server.port()).build(), p);
            try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub()) {
                CompletableFuture<String> message = new CompletableFuture<>();
                CompletableFuture<String> patternMessage = new CompletableFuture<>();
                sub.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String m) {
                        message.complete(channel + ":" + m);
                    }

                    @Override
                    public void message(String pattern, String channel, String m) {
                        patternMessage.complete(pattern + ":" + channel + ":" + m);
                    }
                });
                sub.sync().subscribe("news");
                sub.sync().psubscribe("n*");
                assertEquals(2L, pub.sync().publish("news", "hi"));
                assertEquals("news:hi", message.get(10, TimeUnit.SECONDS));
                assertEquals("n*:news:hi", patternMessage.get(10, TimeUnit.SECONDS));
                assertEquals(1L, pub.sync().pubsubNumsub("news").get("news"));
                assertEquals(1L, pub.sync().pubsubNumpat());
            } finally {
                client.shutdown(0, 1, TimeUnit.SECONDS);
            }
        }
    }

    private static boolean publishUntilNobodyListens(RespClient pub, int bound) throws Exception {
        for (int i = 0; i < bound; i++) {
            if ((Long) pub.call("PUBLISH", "a", "x") == 0L) {
                return true;
            }
        }
        return false;
    }
}
