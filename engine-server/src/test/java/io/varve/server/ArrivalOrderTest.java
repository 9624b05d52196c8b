package io.varve.server;

import io.varve.server.command.CommandTable;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who waits for an announced blocking command, and who does not. A waiting thread is recognised by its state
 * (parked with a timeout inside the wait), not by time.
 */
class ArrivalOrderTest {

    private final ArrivalOrder order = new ArrivalOrder(CommandTable.standard());

    private static byte[][] args(String... words) {
        byte[][] args = new byte[words.length][];
        for (int i = 0; i < words.length; i++) {
            args[i] = words[i].getBytes(StandardCharsets.UTF_8);
        }
        return args;
    }

    private ArrivalOrder.Announced announce(long connection, String... words) {
        byte[][] a = args(words);
        return order.announce(connection, a, a);
    }

    /** Starts {@code awaitEarlier} on its own thread and returns once it waits; the flag says it returned. */
    private Thread waiting(long connection, long stamp, AtomicBoolean returned, String... words) {
        Thread t = Thread.ofPlatform().start(() -> {
            order.awaitEarlier(connection, stamp, args(words));
            returned.set(true);
        });
        while (t.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(t.isAlive(), "it returned without waiting");
            Thread.onSpinWait();
        }
        return t;
    }

    @Test
    void onlyBlockingCommandsWithKeysAreAnnounced() {
        assertNotNull(announce(1, "BLPOP", "k", "0"));
        assertNotNull(announce(1, "brpoplpush", "a", "b", "0"));
        assertNotNull(announce(1, "XREAD", "BLOCK", "0", "STREAMS", "s", "$"));
        assertNull(announce(1, "LPUSH", "k", "a"));
        assertNull(announce(1, "GET", "k"));
        assertNull(announce(1, "BLPOP")); // wrong number of arguments: refused before it could wait
        assertNull(announce(1, "XREAD", "BLOCK", "0")); // no STREAMS: no keys
        assertNull(announce(1, "XREAD", "STREAMS", "s", "$")); // no BLOCK: it answers at once
        assertNull(announce(1, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"));
        assertNotNull(announce(1, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"));
    }

    @Test
    void aLaterCommandOfAnotherConnectionOnTheKeyWaitsUntilTheFirstAttemptIsOver() throws Exception {
        ArrivalOrder.Announced pop = announce(1, "BLPOP", "k", "0");
        AtomicBoolean returned = new AtomicBoolean();
        Thread push = waiting(2, order.stamp(), returned, "LPUSH", "k", "a");
        assertFalse(returned.get());
        order.attempted(pop);
        push.join();
        assertTrue(returned.get());
        assertFalse(order.anyPending());
    }

    @Test
    void otherKeysTheSameConnectionAndEarlierHandOffsDoNotWait() {
        long before = order.stamp();
        announce(1, "BLPOP", "k", "0");
        order.awaitEarlier(2, order.stamp(), args("LPUSH", "other", "a"));
        order.awaitEarlier(1, order.stamp(), args("LPUSH", "k", "a"));
        order.awaitEarlier(2, before, args("LPUSH", "k", "a"));
        order.awaitEarlier(2, order.stamp(), args("PING"));
        // A wait that had run out its bound would have dropped the announcement.
        assertTrue(order.anyPending());
    }

    @Test
    void anAnnouncedCommandWaitsOnlyForThoseAnnouncedBeforeIt() throws Exception {
        ArrivalOrder.Announced first = announce(1, "BRPOPLPUSH", "blist", "t1", "0");
        ArrivalOrder.Announced second = announce(2, "BRPOPLPUSH", "blist", "t2", "0");
        order.awaitEarlier(1, first.number() - 1, args("BRPOPLPUSH", "blist", "t1", "0"));
        AtomicBoolean returned = new AtomicBoolean();
        Thread t = waiting(2, second.number() - 1, returned, "BRPOPLPUSH", "blist", "t2", "0");
        order.attempted(first);
        t.join();
        assertTrue(returned.get());
        assertTrue(order.anyPending(), "the second is still announced");
        order.attempted(second);
        assertFalse(order.anyPending());
    }

    @Test
    void aPublishWaitsForAnEarlierUnsubscribeOfAnotherConnectionAndNothingElseDoes() throws Exception {
        ArrivalOrder.Announced unsubscribe = announce(1, "UNSUBSCRIBE");
        assertNotNull(unsubscribe);
        assertNull(announce(1, "PUBLISH", "chan", "m"));
        order.awaitEarlier(2, order.stamp(), args("LPUSH", "chan", "a"));
        order.awaitEarlier(2, order.stamp(), args("FLUSHALL"));
        assertTrue(order.anyPending(), "only publishes wait for a subscription change");
        AtomicBoolean returned = new AtomicBoolean();
        Thread publish = waiting(2, order.stamp(), returned, "PUBLISH", "chan1", "hello");
        order.attempted(unsubscribe);
        publish.join();
        assertTrue(returned.get());
    }

    @Test
    void aFlushWaitsForEveryKeyAndAClosedConnectionReleasesItsWaiters() throws Exception {
        announce(1, "BLPOP", "k", "0");
        AtomicBoolean returned = new AtomicBoolean();
        Thread flush = waiting(2, order.stamp(), returned, "FLUSHALL");
        order.closed(1);
        flush.join();
        assertTrue(returned.get());
        assertFalse(order.anyPending());
    }

    @Test
    void aWaitThatRunsOutItsBoundDropsTheAnnouncementAndGoesOn() {
        announce(1, "BLPOP", "k", "0");
        order.awaitEarlier(2, order.stamp(), args("LPUSH", "k", "a"));
        assertFalse(order.anyPending());
    }
}
