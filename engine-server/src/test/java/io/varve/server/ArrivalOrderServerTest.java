package io.varve.server;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A blocking command sent on one connection runs before what another connection sends after it, as in Redis.
 * The server has one event loop so both connections' bytes are read in the order they were sent; the two
 * connections' commands still run on different threads, which is what the order must survive.
 */
class ArrivalOrderServerTest {

    @TempDir
    Path dir;

    @RepeatedTest(10)
    void anXreadOfDollarSentBeforeAnotherClientsWritesGetsTheEntryAddedAfterThem() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("io-threads", "1"));
             RespClient blocked = RespClient.connect(server.port());
             RespClient writer = RespClient.connect(server.port())) {
            assertEquals("PONG", blocked.call("PING")); // connected: its bytes are read as they arrive
            writer.call("XADD", "s", "666", "f", "v");
            blocked.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            assertEquals("OK", writer.call("SET", "s", "text"));
            assertEquals(1L, writer.call("DEL", "s"));
            writer.call("XADD", "s", "667", "f", "v");
            assertEquals(List.of(List.of("s", List.of(List.of("667-0", List.of("f", "v"))))), blocked.read());
        }
    }

    @Disabled("fails intermittently with one event loop too: the first BRPOPLPUSH is sometimes left waiting "
            + "(docs/compatibility.md, first cause); open defect, off until it is found")
    @RepeatedTest(10)
    void twoBlockedMovesSentBackToBackAreServedInTheOrderSent() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("io-threads", "1"));
             RespClient first = RespClient.connect(server.port());
             RespClient second = RespClient.connect(server.port());
             RespClient writer = RespClient.connect(server.port())) {
            assertEquals("PONG", first.call("PING"));
            assertEquals("PONG", second.call("PING"));
            assertEquals("OK", writer.call("SET", "target1", "not a list"));
            first.send("BRPOPLPUSH", "blist", "target1", "0");
            second.send("BRPOPLPUSH", "blist", "target2", "0");
            writer.call("LPUSH", "blist", "foo");
            Object firstReply = first.read();
            assertEquals("WRONGTYPE", ((RespClient.Err) firstReply).text().split(" ")[0]);
            assertEquals("foo", second.read());
            assertEquals(List.of("foo"), writer.call("LRANGE", "target2", "0", "-1"));
        }
    }

    @RepeatedTest(10)
    void aPublishSentAfterAnotherClientsUnsubscribeReachesNobody() throws Exception {
        try (TestServer server = TestServer.start(dir, c -> c.with("io-threads", "1"));
             RespClient subscriber = RespClient.connect(server.port());
             RespClient publisher = RespClient.connect(server.port())) {
            subscriber.send("SUBSCRIBE", "chan1", "chan2");
            assertEquals(List.of("subscribe", "chan1", 1L), subscriber.read());
            assertEquals(List.of("subscribe", "chan2", 2L), subscriber.read());
            subscriber.send("UNSUBSCRIBE");
            assertEquals(0L, publisher.call("PUBLISH", "chan1", "hello"));
            assertEquals(0L, publisher.call("PUBLISH", "chan2", "hello"));
        }
    }
}
