package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Streams over a raw socket, so replies are compared exactly as Redis 7.0 sends them (the expected values
 * were checked against redis-server 7.0.15 with the same commands).
 */
class StreamCommandsTest extends OneServerPerClass {

    private RespClient client() throws Exception {
        RespClient c = RespClient.connect(server.port());
        c.call("FLUSHALL");
        return c;
    }

    private static RespClient.Err err(String text) {
        return new RespClient.Err(text);
    }

    private static List<Object> entry(String id, String... items) {
        return List.of(id, List.of((Object[]) items));
    }

    @Test
    void xaddPicksIdsAndRefusesWhatRedisRefuses() throws Exception {
        try (RespClient c = client()) {
            assertEquals("1-1", c.call("XADD", "s", "1-1", "a", "1"));
            assertEquals(err("ERR The ID specified in XADD is equal or smaller than the target stream top item"),
                    c.call("XADD", "s", "1-1", "a", "1"));
            assertEquals(err("ERR The ID specified in XADD must be greater than 0-0"), c.call("XADD", "t", "0-0", "a", "1"));
            assertEquals(0L, c.call("EXISTS", "t"), "a refused XADD leaves no empty stream behind");
            assertEquals("1-2", c.call("XADD", "s", "1-*", "a", "1"));
            assertEquals("5-0", c.call("XADD", "s", "5-*", "a", "1"));
            assertEquals("7-0", c.call("XADD", "s", "7", "a", "1"));
            assertEquals(err("ERR Invalid stream ID specified as stream command argument"), c.call("XADD", "s", "x-1", "a", "1"));
            assertEquals(err("ERR wrong number of arguments for 'xadd' command"), c.call("XADD", "s", "*", "a"));
            server.clock.set(1_000);
            assertEquals(err("ERR The ID specified in XADD is equal or smaller than the target stream top item"),
                    c.call("XADD", "s", "6-*", "a", "1"));
            assertEquals("1000-0", c.call("XADD", "s", "*", "a", "1"), "* takes the clock's milliseconds");
            assertEquals("1000-1", c.call("XADD", "s", "*", "a", "1"));
            server.clock.set(900);
            assertEquals("1000-2", c.call("XADD", "s", "*", "a", "1"), "a clock that went back never lowers the ID");
            assertNull(c.call("XADD", "none", "NOMKSTREAM", "*", "a", "1"));
            assertEquals(0L, c.call("EXISTS", "none"));
            assertEquals(7L, c.call("XLEN", "s"));
            assertEquals(0L, c.call("XLEN", "none"));
        }
    }

    @Test
    void rangesInBothDirectionsWithExclusiveBoundsAndCount() throws Exception {
        try (RespClient c = client()) {
            for (String id : List.of("1-1", "1-2", "2-0", "3-5")) {
                c.call("XADD", "s", id, "f", id);
            }
            assertEquals(List.of(entry("1-2", "f", "1-2"), entry("2-0", "f", "2-0")), c.call("XRANGE", "s", "(1-1", "(3-5"));
            assertEquals(List.of(entry("1-1", "f", "1-1"), entry("1-2", "f", "1-2")), c.call("XRANGE", "s", "1", "1"));
            assertEquals(List.of(entry("3-5", "f", "3-5"), entry("2-0", "f", "2-0")), c.call("XREVRANGE", "s", "+", "-", "COUNT", "2"));
            assertNull(c.call("XRANGE", "s", "-", "+", "COUNT", "0"), "COUNT 0 of an existing stream is a null array");
            assertEquals(List.of(), c.call("XRANGE", "nokey", "-", "+", "COUNT", "0"));
            assertEquals(err("ERR invalid end ID for the interval"), c.call("XRANGE", "s", "-", "(0-0"));
            assertEquals(err("ERR invalid start ID for the interval"),
                    c.call("XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"));
            assertEquals(err("ERR syntax error"), c.call("XRANGE", "s", "-", "+", "LIMIT", "1"));
        }
    }

    @Test
    void trimmingExactlyAndByWholeNodes() throws Exception {
        try (RespClient c = client()) {
            for (int i = 1; i <= 1000; i++) {
                c.call("XADD", "approx", "MAXLEN", "~", "555", "*", "item", Integer.toString(i));
            }
            assertEquals(600L, c.call("XLEN", "approx"), "~ removes whole nodes of 100, as Redis does");
            for (int i = 1; i <= 5; i++) {
                c.call("XADD", "s", i + "-0", "f", "v");
            }
            assertEquals(0L, c.call("XTRIM", "s", "MAXLEN", "~", "2"), "no whole node to remove");
            assertEquals(3L, c.call("XTRIM", "s", "MAXLEN", "2"));
            assertEquals(List.of("4-0", "5-0"), ids(c.call("XRANGE", "s", "-", "+")));
            assertEquals(1L, c.call("XTRIM", "s", "MINID", "5"));
            assertEquals("6-0", c.call("XADD", "s", "MAXLEN", "0", "6-0", "f", "v"));
            assertEquals(0L, c.call("XLEN", "s"), "MAXLEN 0 removes even the entry just added");
            assertEquals(1L, c.call("EXISTS", "s"), "an empty stream stays");
            assertEquals(err("ERR syntax error, LIMIT cannot be used without the special ~ option"),
                    c.call("XTRIM", "s", "MAXLEN", "=", "0", "LIMIT", "10"));
            assertEquals(err("ERR syntax error, XTRIM must be called with a trimming strategy"), c.call("XTRIM", "s", "LIMIT", "0"));
            assertEquals(err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"),
                    c.call("XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "a", "b"));
            assertEquals(err("ERR The MAXLEN argument must be >= 0."), c.call("XTRIM", "s", "MAXLEN", "-1"));
        }
    }

    private static List<Object> ids(Object entries) {
        return ((List<?>) entries).stream().map(e -> ((List<?>) e).getFirst()).map(Object.class::cast).toList();
    }

    @Test
    void xdelAndXsetidKeepTheStreamsCounters() throws Exception {
        try (RespClient c = client()) {
            c.call("XADD", "s", "1-0", "a", "1");
            c.call("XADD", "s", "2-0", "b", "2");
            c.call("XADD", "s", "3-0", "c", "3");
            assertEquals(1L, c.call("XDEL", "s", "1-0", "9-9"));
            Map<String, Object> info = map(c.call("XINFO", "STREAM", "s"));
            assertEquals(2L, info.get("length"));
            assertEquals("3-0", info.get("last-generated-id"));
            assertEquals("1-0", info.get("max-deleted-entry-id"));
            assertEquals(3L, info.get("entries-added"));
            assertEquals("2-0", info.get("recorded-first-entry-id"));
            assertEquals(entry("2-0", "b", "2"), info.get("first-entry"));
            assertEquals(entry("3-0", "c", "3"), info.get("last-entry"));
            assertEquals(err("ERR The ID specified in XSETID is smaller than the target stream top item"),
                    c.call("XSETID", "s", "2-9"));
            assertEquals("OK", c.call("XSETID", "s", "10-0", "ENTRIESADDED", "7", "MAXDELETEDID", "5-0"));
            assertEquals("10-1", c.call("XADD", "s", "10-*", "d", "4"));
            assertEquals(err("ERR no such key"), c.call("XSETID", "nokey", "1-0"));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object flat) {
        List<Object> items = (List<Object>) flat;
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < items.size(); i += 2) {
            m.put((String) items.get(i), items.get(i + 1));
        }
        return m;
    }

    @Test
    void consumerGroupsDeliverTrackAcknowledgeAndClaim() throws Exception {
        try (RespClient c = client()) {
            assertEquals(err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want "
                    + "to use the MKSTREAM option to create an empty stream automatically."), c.call("XGROUP", "CREATE", "s", "g", "$"));
            assertEquals("OK", c.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"));
            assertEquals(err("BUSYGROUP Consumer Group name already exists"), c.call("XGROUP", "CREATE", "s", "g", "0"));
            c.call("XADD", "s", "1-0", "a", "1");
            c.call("XADD", "s", "2-0", "b", "2");
            c.call("XADD", "s", "3-0", "c", "3");
            assertEquals(List.of(List.of("s", List.of(entry("1-0", "a", "1")))),
                    c.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"));
            assertEquals(List.of(List.of("s", List.of(entry("2-0", "b", "2"), entry("3-0", "c", "3")))),
                    c.call("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"));
            assertNull(c.call("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"), "nothing new");
            assertEquals(List.of(List.of("s", List.of(entry("1-0", "a", "1")))),
                    c.call("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"), "an ID reads the consumer's own history");
            assertEquals(List.of(3L, "1-0", "3-0", List.of(List.of("alice", "1"), List.of("bob", "2"))), c.call("XPENDING", "s", "g"));
            assertEquals(err("NOGROUP No such key 's' or consumer group 'x' in XREADGROUP with GROUP option"),
                    c.call("XREADGROUP", "GROUP", "x", "bob", "STREAMS", "s", ">"));
            assertEquals(1L, c.call("XACK", "s", "g", "2-0", "9-0"));
            assertEquals(1L, c.call("XDEL", "s", "3-0"));
            Object history = c.call("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "0");
            assertEquals("[[s, [[3-0, null]]]]", String.valueOf(history), "a deleted pending entry shows with a nil body");
            assertEquals(List.of("1-0"), c.call("XCLAIM", "s", "g", "carol", "0", "1-0", "3-0", "JUSTID"),
                    "a deleted entry is dropped from the pending list, not claimed");
            assertEquals(List.of(1L, "1-0", "1-0", List.of(List.of("carol", "1"))), c.call("XPENDING", "s", "g"));
            List<?> detail = (List<?>) ((List<?>) c.call("XPENDING", "s", "g", "-", "+", "10")).getFirst();
            assertEquals("1-0", detail.get(0));
            assertEquals("carol", detail.get(1));
            assertEquals(2L, detail.get(3), "delivered to alice, then claimed (JUSTID does not count a delivery)");
            c.call("XADD", "s", "4-0", "d", "4");
            c.call("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">");
            assertEquals(List.of("0-0", List.of(entry("1-0", "a", "1"), entry("4-0", "d", "4")), List.of()),
                    c.call("XAUTOCLAIM", "s", "g", "dave", "0", "0"));
            assertEquals(List.of("4-0", List.of("1-0"), List.of()), c.call("XAUTOCLAIM", "s", "g", "erin", "0", "0", "COUNT", "1", "JUSTID"));
            assertEquals(1L, c.call("XGROUP", "DELCONSUMER", "s", "g", "erin"));
            assertEquals(List.of(1L, "4-0", "4-0", List.of(List.of("dave", "1"))), c.call("XPENDING", "s", "g"));
            Map<String, Object> group = map(((List<?>) c.call("XINFO", "GROUPS", "s")).getFirst());
            assertEquals("g", group.get("name"));
            assertEquals(4L, group.get("consumers"), "alice, bob, carol, dave");
            assertEquals(1L, group.get("pending"));
            assertEquals("4-0", group.get("last-delivered-id"));
            assertEquals(1L, c.call("XGROUP", "DESTROY", "s", "g"));
            assertEquals(List.of(), c.call("XINFO", "GROUPS", "s"));
            assertEquals(err("NOGROUP No such key 's' or consumer group 'g'"), c.call("XPENDING", "s", "g"));
        }
    }

    @Test
    void keyCommandsWorkOnStreams() throws Exception {
        try (RespClient c = client()) {
            c.call("XADD", "s", "1-0", "a", "1");
            c.call("XGROUP", "CREATE", "s", "g", "0");
            c.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">");
            assertEquals("stream", c.call("TYPE", "s"));
            assertEquals("stream", c.call("OBJECT", "ENCODING", "s"));
            assertEquals(List.of("0", List.of("s")), c.call("SCAN", "0", "TYPE", "stream"));
            assertEquals("OK", c.call("RENAME", "s", "r"));
            assertEquals(List.of(entry("1-0", "a", "1")), c.call("XRANGE", "r", "-", "+"));
            assertEquals(1L, ((List<?>) c.call("XPENDING", "r", "g")).getFirst(), "groups move with the stream");
            assertEquals(1L, c.call("COPY", "r", "copy"));
            c.call("XADD", "copy", "2-0", "b", "2");
            assertEquals(1L, c.call("XLEN", "r"), "a copy is independent");
            assertEquals(2L, c.call("XLEN", "copy"));
            assertEquals(1L, c.call("XACK", "copy", "g", "1-0"));
            assertEquals(1L, ((List<?>) c.call("XPENDING", "r", "g")).getFirst());
            assertEquals(1L, c.call("DEL", "r"));
            assertEquals(0L, c.call("XLEN", "r"));
            assertEquals("OK", c.call("XGROUP", "CREATE", "r", "g", "$", "MKSTREAM"));
            assertEquals("[0, null, null, null]", String.valueOf(c.call("XPENDING", "r", "g")), "a re-created stream starts empty");
            assertEquals(1L, c.call("PEXPIRE", "copy", "100"));
            server.advance(java.time.Duration.ofMillis(200));
            assertEquals(0L, c.call("EXISTS", "copy"));
            c.call("SET", "str", "x");
            assertEquals(err("WRONGTYPE Operation against a key holding the wrong kind of value"), c.call("XADD", "str", "*", "a", "b"));
            assertEquals(err("WRONGTYPE Operation against a key holding the wrong kind of value"), c.call("XREAD", "STREAMS", "str", "0"));
        }
    }

    @Test
    void xreadKeysAreFoundAfterStreamsForWatchAndGetkeys() throws Exception {
        try (RespClient c = client(); RespClient other = RespClient.connect(server.port())) {
            assertEquals(List.of("a", "b"), c.call("COMMAND", "GETKEYS", "XREAD", "COUNT", "2", "STREAMS", "a", "b", "0", "0"));
            assertEquals(List.of("streams"), c.call("COMMAND", "GETKEYS", "XREADGROUP", "GROUP", "streams", "c", "STREAMS",
                    "streams", ">"));
            c.call("XGROUP", "CREATE", "w", "g", "$", "MKSTREAM");
            c.call("XADD", "w", "1-0", "a", "1");
            c.call("WATCH", "w");
            other.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "w", ">");
            c.call("MULTI");
            c.call("XLEN", "w");
            assertNull(c.call("EXEC"), "XREADGROUP wrote the stream's group: the watcher aborts");
        }
    }

    @Test
    void streamsSurviveARestart(@TempDir Path dir) throws Exception {
        try (TestServer s = TestServer.start(dir); RespClient c = RespClient.connect(s.port())) {
            c.call("XADD", "s", "1-0", "a", "1");
            c.call("XADD", "s", "2-0", "b", "2");
            c.call("XDEL", "s", "1-0");
            c.call("XGROUP", "CREATE", "s", "g", "0");
            c.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">");
        }
        try (TestServer s = TestServer.start(dir); RespClient c = RespClient.connect(s.port())) {
            assertEquals(List.of(entry("2-0", "b", "2")), c.call("XRANGE", "s", "-", "+"));
            assertEquals(List.of(1L, "2-0", "2-0", List.of(List.of("c", "1"))), c.call("XPENDING", "s", "g"));
            assertEquals(err("ERR The ID specified in XADD is equal or smaller than the target stream top item"),
                    c.call("XADD", "s", "2-0", "x", "y"), "the last ID survives too");
            assertTrue(c.call("XADD", "s", "*", "x", "y") instanceof String);
        }
    }
}
