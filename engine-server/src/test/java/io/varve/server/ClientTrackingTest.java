package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Client-side caching (CLIENT TRACKING) as Redis 7's tests/unit/tracking.tcl checks it: who is told which keys
 * changed, in which shape, and when nobody is told. An absent message is checked by a PING answered next: the
 * write that would owe the message ran before the PING was sent, so its message would come first.
 */
class ClientTrackingTest {

    private static final String CHANNEL = "__redis__:invalidate";

    @TempDir
    Path dir;

    /** Reads the next message, which the background expiry sweep sends whenever its pass reaches the key. */
    private static Object readWaiting(RespClient client) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                return client.read();
            } catch (java.net.SocketTimeoutException stillWaiting) {
                if (attempt == 5) {
                    throw stillWaiting;
                }
            }
        }
    }

    @Test
    void defaultModeSendsOnePushPerReadKeyAndForgetsIt() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on"));
            other.call("SET", "a", "1");
            other.call("SET", "b", "1");
            assertEquals("1", me.call("GET", "a"));
            other.call("SET", "b", "2"); // never read: nobody is told
            other.call("SET", "a", "2");
            assertEquals(List.of("invalidate", List.of("a")), me.read());
            other.call("SET", "a", "3"); // forgotten after the first message until read again
            assertEquals("PONG", me.call("PING"));
        }
    }

    @Test
    void redirectToResp2SubscriberUsesTheInvalidateChannel() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient redirect = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            long id = (Long) redirect.call("CLIENT", "ID");
            assertEquals(List.of("subscribe", CHANNEL, 1L), redirect.call("SUBSCRIBE", CHANNEL));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "REDIRECT", Long.toString(id)));
            assertEquals(id, me.call("CLIENT", "GETREDIR"));
            me.call("MGET", "x", "y");
            other.call("SET", "y", "1");
            assertEquals(List.of("message", CHANNEL, List.of("y")), redirect.read());
            other.call("FLUSHALL");
            assertEquals(java.util.Arrays.asList("message", CHANNEL, null), redirect.read());
        }
    }

    @Test
    void broadcastGathersARequestsKeysPerPrefixAndNoLoopSkipsOwnWrites() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a:", "PREFIX", "b:"));
            other.call("MULTI");
            other.call("INCR", "a:1");
            other.call("INCR", "a:2");
            other.call("INCR", "b:1");
            other.call("INCR", "c:1");
            assertEquals(List.of(1L, 1L, 1L, 1L), other.call("EXEC"));
            assertEquals(List.of("invalidate", List.of("a:1", "a:2")), me.read());
            assertEquals(List.of("invalidate", List.of("b:1")), me.read());

            assertEquals("OK", me.call("CLIENT", "TRACKING", "off"));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP"));
            assertEquals("OK", me.call("SET", "mine", "1"));
            other.call("SET", "theirs", "1");
            assertEquals(List.of("invalidate", List.of("theirs")), me.read());
            assertEquals(Map.of("flags", List.of("on", "bcast", "noloop"), "redirect", 0L, "prefixes", List.of("")),
                    me.call("CLIENT", "TRACKINGINFO"));
        }
    }

    @Test
    void aScriptThatReadsRecordsItsDeclaredKeys() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            me.call("CLIENT", "TRACKING", "on");
            me.call("EVAL", "redis.call('set', 'k3', 'bar')", "2", "k1", "k2"); // no read: nothing recorded
            other.call("MSET", "k2", "1", "k1", "1");
            me.call("EVAL", "redis.call('get', 'k3')", "2", "k1", "k2");
            other.call("MSET", "k2", "2", "k1", "2", "k3", "2");
            assertEquals(List.of("invalidate", List.of("k2")), me.read());
            assertEquals(List.of("invalidate", List.of("k1")), me.read());
            assertEquals("PONG", me.call("PING"), "k3, read inside the script but not declared, is not recorded");
        }
    }

    @Test
    void aReadOnlyScriptThatReadNothingRecordsNothing() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            me.call("CLIENT", "TRACKING", "on");
            me.call("EVAL_RO", "redis.call('ping')", "1", "k1");
            other.call("SET", "k1", "1");
            assertEquals("PONG", me.call("PING"), "EVAL_RO is flagged readonly, but its script read no key");
            me.call("EVAL_RO", "redis.call('get', 'k2')", "1", "k1");
            other.call("SET", "k1", "2");
            assertEquals(List.of("invalidate", List.of("k1")), me.read());
        }
    }

    @Test
    void keysTheExpirySweepRemovesAreInvalidated() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            me.call("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP");
            assertEquals("OK", me.call("SET", "short", "v", "PX", "1")); // own write: NOLOOP keeps it quiet
            server.advance(java.time.Duration.ofSeconds(1));
            assertEquals(List.of("invalidate", List.of("short")), readWaiting(me), "the sweep's delete is nobody's write");
        }
    }

    @Test
    void aSetWhoseExpiryHasPassedStillExpiresThroughTheSweep() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            me.call("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP");
            // what a SET PX 1 meets when its millisecond is gone before the write is staged
            assertEquals("OK", me.call("SET", "late", "v", "PXAT", "1"));
            assertEquals(0L, me.call("EXISTS", "late"));
            assertEquals(List.of("invalidate", List.of("late")), readWaiting(me), "the key goes by expiry, nobody's write");
        }
    }

    @Test
    void optInTracksOnlyTheCommandAfterCachingYes() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            me.call("CLIENT", "TRACKING", "on", "OPTIN");
            me.call("GET", "skipped");
            assertEquals("OK", me.call("CLIENT", "CACHING", "yes"));
            assertEquals(Map.of("flags", List.of("on", "optin", "caching-yes"), "redirect", 0L, "prefixes", List.of()),
                    me.call("CLIENT", "TRACKINGINFO"));
            me.call("GET", "kept"); // a CLIENT command in between keeps the choice
            me.call("GET", "skipped");
            other.call("SET", "skipped", "1");
            other.call("SET", "kept", "1");
            assertEquals(List.of("invalidate", List.of("kept")), me.read());
            assertEquals(new RespClient.Err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT "
                    + "mode."), me.call("CLIENT", "CACHING", "no"));
        }
    }

    @Test
    void aCachingChoiceHoldsForAWholeTransaction() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            me.call("HELLO", "3");
            me.call("CLIENT", "TRACKING", "on", "OPTIN");
            me.call("CLIENT", "CACHING", "yes");
            me.call("MULTI");
            me.call("GET", "first");
            me.call("GET", "second");
            assertEquals(List.of(RespClient.NULL, RespClient.NULL), me.call("EXEC"));
            me.call("GET", "after");
            other.call("MSET", "after", "1", "first", "1", "second", "1");
            assertEquals(List.of("invalidate", List.of("first")), me.read());
            assertEquals(List.of("invalidate", List.of("second")), me.read());
            assertEquals("PONG", me.call("PING"), "the choice ended with EXEC");
        }
    }

    @Test
    void aTrackingClientMayChangeItsRedirectTargetAndShareOne() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient second = RespClient.connect(server.port());
             RespClient first = RespClient.connect(server.port());
             RespClient shared = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            String firstId = first.call("CLIENT", "ID").toString();
            String sharedId = shared.call("CLIENT", "ID").toString();
            assertEquals(List.of("subscribe", CHANNEL, 1L), first.call("SUBSCRIBE", CHANNEL));
            assertEquals(List.of("subscribe", CHANNEL, 1L), shared.call("SUBSCRIBE", CHANNEL));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "REDIRECT", firstId));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "REDIRECT", firstId));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "REDIRECT", sharedId));
            assertEquals(Long.parseLong(sharedId), me.call("CLIENT", "GETREDIR"));
            assertEquals("OK", second.call("CLIENT", "TRACKING", "on", "REDIRECT", sharedId));
            me.call("GET", "mine");
            second.call("GET", "theirs");
            other.call("SET", "mine", "1");
            other.call("SET", "theirs", "1");
            assertEquals(List.of("message", CHANNEL, List.of("mine")), shared.read());
            assertEquals(List.of("message", CHANNEL, List.of("theirs")), shared.read());
            assertEquals(List.of("subscribe", "x", 2L), first.call("SUBSCRIBE", "x"), "the first target got nothing");
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on"));
            assertEquals(0L, me.call("CLIENT", "GETREDIR"), "turning on again without REDIRECT drops the redirect");
        }
    }

    @Test
    void turningTrackingOnAgainIsCheckedAsRedisChecksIt() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port())) {
            assertEquals(new RespClient.Err("ERR You can't specify both OPTIN mode and OPTOUT mode"),
                    me.call("CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"));
            assertEquals(new RespClient.Err("ERR The client ID you want redirect to does not exist"),
                    me.call("CLIENT", "TRACKING", "off", "REDIRECT", "999999"), "options are checked before OFF");
            assertEquals("OK", me.call("CLIENT", "TRACKING", "off", "PREFIX", "x", "OPTIN", "OPTOUT"));
            String myId = me.call("CLIENT", "ID").toString();
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "REDIRECT", myId));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "off"));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "b"));
            assertEquals(new RespClient.Err("ERR Prefix 'b' overlaps with an existing prefix 'b'. "
                    + "Prefixes for a single client must not overlap."),
                    me.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "b"));
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "BCAST"));
            assertEquals(List.of("flags", List.of("on", "bcast"), "redirect", 0L, "prefixes", List.of("", "b")),
                    me.call("CLIENT", "TRACKINGINFO"), "every prefix the client gave, in key order");
            assertEquals(new RespClient.Err("ERR Prefix 'a' overlaps with an existing prefix ''. "
                    + "Prefixes for a single client must not overlap."),
                    me.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a"));
        }
    }

    @Test
    void anUnblockedMoveIsAnsweredThenItsInvalidationSent() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            other.call("RPUSH", "dst", "a");
            me.call("HELLO", "3");
            me.call("CLIENT", "TRACKING", "on");
            assertEquals(List.of("a"), me.call("LRANGE", "dst", "0", "-1"));
            me.send("BLMOVE", "src", "dst", "LEFT", "LEFT", "0");
            while (!other.call("INFO", "clients").toString().contains("blocked_clients:1\r\n")) {
                Thread.onSpinWait(); // the BLMOVE has not parked yet
            }
            other.call("RPUSH", "src", "foo");
            assertEquals("foo", me.read());
            assertEquals(List.of("invalidate", List.of("dst")), me.read(), "the push does not wait for a next command");
        }
    }

    @Test
    void aClientThatQuitStopsTrackingAtItsReply() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            assertEquals("OK", me.call("CLIENT", "TRACKING", "on", "BCAST"));
            assertEquals("OK", me.call("QUIT")); // its socket stays open here, as a client that never closes it
            String info = other.call("INFO", "clients").toString();
            assertTrue(info.contains("tracking_clients:0\r\n"), info);
        }
    }

    @Test
    void goneRedirectTargetIsReportedAsBroken() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            long id;
            try (RespClient redirect = RespClient.connect(server.port())) {
                id = (Long) redirect.call("CLIENT", "ID");
                me.call("HELLO", "3");
                me.call("CLIENT", "TRACKING", "on", "REDIRECT", Long.toString(id));
                me.call("GET", "k");
                assertEquals("OK", redirect.call("QUIT"));
                assertTrue(redirect.closedByServer());
            }
            // the server may drop the closed connection after the next write: each round reads the key again
            Object pushed;
            do {
                other.call("SET", "k", "v");
                pushed = me.call("GET", "k"); // the push, if the write sent one, comes before the reply
            } while ("v".equals(pushed));
            assertEquals(List.of("tracking-redir-broken", id), pushed);
            assertEquals("v", me.read());
            Object info = me.call("CLIENT", "TRACKINGINFO");
            assertEquals(List.of("on", "broken_redirect"), ((Map<?, ?>) info).get("flags"));
        }
    }

    @Test
    void aRedirectTargetThatQuitIsBrokenForTheFirstWriteAfterItsReply() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            long id;
            try (RespClient redirect = RespClient.connect(server.port())) {
                id = (Long) redirect.call("CLIENT", "ID");
                me.call("HELLO", "3");
                me.call("CLIENT", "TRACKING", "on", "REDIRECT", Long.toString(id));
                me.call("GET", "k");
                assertEquals("OK", redirect.call("QUIT"));
                // the redirect's channel may still be open here: Redis has freed its client by now
                other.call("SET", "k", "v");
                assertEquals(List.of("tracking-redir-broken", id), me.call("PING"));
                assertEquals("PONG", me.read());
            }
        }
    }

    @Test
    void overlappingPrefixesAreRefusedAndInfoCountsTheTable() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient me = RespClient.connect(server.port());
             RespClient bcast = RespClient.connect(server.port())) {
            assertEquals(new RespClient.Err("ERR Prefix 'FOOBAR' overlaps with another provided prefix 'FOO'. "
                    + "Prefixes for a single client must not overlap."),
                    bcast.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FOOBAR", "PREFIX", "FOO"));
            assertEquals("OK", bcast.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FOO"));
            assertEquals(new RespClient.Err("ERR Prefix 'FO' overlaps with an existing prefix 'FOO'. "
                    + "Prefixes for a single client must not overlap."),
                    bcast.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FO"));
            assertEquals(-1L, me.call("CLIENT", "GETREDIR"));
            me.call("CLIENT", "TRACKING", "on");
            assertEquals(0L, me.call("CLIENT", "GETREDIR"));
            me.call("MGET", "k1", "k2");
            String info = me.call("INFO", "clients") + "\r\n" + me.call("INFO", "stats");
            Set<String> lines = new java.util.HashSet<>(List.of(info.split("\r\n")));
            assertTrue(lines.contains("tracking_clients:2"), info);
            assertTrue(lines.contains("tracking_total_keys:2"), info);
            assertTrue(lines.contains("tracking_total_items:2"), info);
            assertTrue(lines.contains("tracking_total_prefixes:1"), info);
        }
    }
}
