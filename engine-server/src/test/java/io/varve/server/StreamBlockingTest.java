package io.varve.server;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * XREAD and XREADGROUP with BLOCK, served by XADD from another client. A test writes only once the server's
 * registry shows the reader parked ({@code awaitWaiting}), never after a sleep; replies are read with the
 * client's socket timeout only to detect hangs.
 */
class StreamBlockingTest extends OneServerPerClass {

    private RespClient client() throws Exception {
        return RespClient.connect(server.port());
    }

    private void awaitWaiting(String key, int count) throws InterruptedException {
        assertTrue(server.server.keyspace().blocking().awaitWaiting(key.getBytes(StandardCharsets.UTF_8), count, 10_000),
                count + " waiting on " + key);
    }

    private static List<Object> entry(String id, String... items) {
        return List.of(id, List.of((Object[]) items));
    }

    @Test
    void xreadFromTheLastIdIsServedByTheNextXadd() throws Exception {
        try (RespClient reader = client(); RespClient writer = client()) {
            writer.call("FLUSHALL");
            writer.call("XADD", "s", "1-0", "old", "1");
            reader.send("XREAD", "BLOCK", "0", "STREAMS", "other", "s", "$", "$");
            awaitWaiting("s", 1);
            assertFalse(reader.replyWaiting());
            writer.call("XADD", "s", "2-0", "new", "2");
            assertEquals(List.of(List.of("s", List.of(entry("2-0", "new", "2")))), reader.read());
            awaitWaiting("other", 0);
            assertEquals("PONG", reader.call("PING"), "the connection goes on after being served");
        }
    }

    @Test
    void xreadTimesOutWithANullArray() throws Exception {
        try (RespClient reader = client()) {
            reader.call("FLUSHALL");
            assertNull(reader.call("XREAD", "BLOCK", "1", "STREAMS", "s", "$"));
            assertNull(reader.call("XREAD", "STREAMS", "s", "0"), "without BLOCK nothing to read is a null array");
        }
    }

    @Test
    void oneXaddServesEveryGroupEvenBehindAReaderOfTheSameGroupThatFindsNothing() throws Exception {
        try (RespClient first = client(); RespClient second = client(); RespClient otherGroup = client();
             RespClient writer = client()) {
            writer.call("FLUSHALL");
            writer.call("XGROUP", "CREATE", "s", "g1", "$", "MKSTREAM");
            writer.call("XGROUP", "CREATE", "s", "g2", "$");
            first.send("XREADGROUP", "GROUP", "g1", "a", "BLOCK", "0", "STREAMS", "s", ">");
            awaitWaiting("s", 1);
            second.send("XREADGROUP", "GROUP", "g1", "b", "BLOCK", "0", "STREAMS", "s", ">");
            awaitWaiting("s", 2);
            otherGroup.send("XREADGROUP", "GROUP", "g2", "c", "BLOCK", "0", "STREAMS", "s", ">");
            awaitWaiting("s", 3);
            writer.call("XADD", "s", "1-0", "f", "v");
            List<Object> served = List.of(List.of("s", List.of(entry("1-0", "f", "v"))));
            assertEquals(served, first.read());
            assertEquals(served, otherGroup.read(), "g1's second reader found nothing, which says nothing about g2");
            awaitWaiting("s", 1);
            assertFalse(second.replyWaiting(), "g1 delivered the entry once");
            writer.call("XADD", "s", "2-0", "f", "w");
            assertEquals(List.of(List.of("s", List.of(entry("2-0", "f", "w")))), second.read());
            assertEquals(2L, ((List<?>) writer.call("XPENDING", "s", "g1")).getFirst(), "each delivery is pending");
        }
    }

    @Test
    void destroyingTheGroupEndsItsBlockedReadersWithNogroup() throws Exception {
        try (RespClient reader = client(); RespClient admin = client()) {
            admin.call("FLUSHALL");
            admin.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            reader.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">");
            awaitWaiting("s", 1);
            assertEquals(1L, admin.call("XGROUP", "DESTROY", "s", "g"));
            assertEquals(new RespClient.Err("NOGROUP the consumer group this client was blocked on no longer exists"),
                    reader.read());
            awaitWaiting("s", 0);
        }
    }

    @Test
    void aBlockedReaderIsNotServedByAnotherDatabaseOrType() throws Exception {
        try (RespClient reader = client(); RespClient writer = client()) {
            writer.call("FLUSHALL");
            reader.send("XREAD", "BLOCK", "0", "STREAMS", "s", "0");
            awaitWaiting("s", 1);
            writer.call("SELECT", "1");
            writer.call("XADD", "s", "1-0", "elsewhere", "1");
            writer.call("SELECT", "0");
            writer.call("LPUSH", "s", "not-a-stream");
            assertEquals(1, server.server.keyspace().blocking().waitingOn(0, "s".getBytes(StandardCharsets.UTF_8)));
            writer.call("DEL", "s");
            writer.call("XADD", "s", "3-0", "here", "3");
            assertEquals(List.of(List.of("s", List.of(entry("3-0", "here", "3")))), reader.read());
        }
    }
}
