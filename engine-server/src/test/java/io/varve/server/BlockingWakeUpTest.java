package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.protocol.ProtocolVersion;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.StripeOrder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A blocked client stays registered until it is really served, times out or goes away, whatever the
 * writers serving it do meanwhile. The interleavings are forced by holding a key's stripe lock from the
 * test, never by sleeping; futures are read with a bound only to detect hangs.
 */
class BlockingWakeUpTest extends OneServerPerClass {

    private static <T> T get(RedisFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private void awaitWaiting(String key, int count) throws InterruptedException {
        assertTrue(keyspace().blocking().awaitWaiting(key.getBytes(StandardCharsets.UTF_8), count, 10_000),
                count + " waiting on " + key);
    }

    /** Polls LLEN; the bound only detects a hang. */
    private static void awaitLength(Lettuce client, String key, long length) throws TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.sync().llen(key) != length) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(key + " never reached length " + length);
            }
        }
    }

    private Keyspace keyspace() {
        return server.server.keyspace();
    }

    /**
     * A BLMOVE is being served by one push's writer, which waits for the destination's lock; a second push
     * meets the waiter mid-serve; a plain pop then takes both elements, so the first serve finds nothing. The
     * client must wait on, registered, and the next push must serve it.
     */
    @Test
    void aWaiterWhoseServeFindsNothingStaysRegisteredWhileAnotherWriterMetIt() throws Exception {
        String src = "src";
        String dst = StripeOrder.lockedBefore("dst", src); // the serve waits for dst holding no other lock
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce a = connect(ProtocolVersion.RESP2);
             Lettuce b = connect(ProtocolVersion.RESP2); Lettuce popper = connect(ProtocolVersion.RESP2)) {
            RedisFuture<String> move = blocked.async().blmove(src, dst, LMoveArgs.Builder.leftLeft(), 0);
            awaitWaiting(src, 1);
            RedisFuture<Long> pushA;
            RedisFuture<Long> pushB;
            try (LockStripes.Held held = keyspace().lock(dst.getBytes(StandardCharsets.UTF_8))) {
                pushA = a.async().lpush(src, "a");
                pushB = b.async().lpush(src, "b");
                // One push's writer serves the client and waits for dst; the other met it being served.
                CompletableFuture.anyOf(pushA.toCompletableFuture(), pushB.toCompletableFuture())
                        .get(10, TimeUnit.SECONDS);
                assertEquals(Set.of("a", "b"), new HashSet<>(popper.sync().lpop(src, 2)));
            }
            get(pushA);
            get(pushB);
            assertEquals(1, keyspace().blocking().blockedCount(), "the client still waits, registered");
            assertEquals(1, popper.sync().lpush(src, "c"));
            assertEquals("c", get(move));
            assertEquals(List.of("c"), popper.sync().lrange(dst, 0, -1));
            assertEquals(0, keyspace().blocking().blockedCount());
        }
    }
    /**
     * A BLPOP that pops at once marks its key written, which offers the key to the clients blocked on it. That
     * offer must not run while the BLPOP still holds its keys' locks: serving a BLMOVE takes its destination's
     * lock too, and a client holding that lock while it waits for the BLPOP's key (another BLMOVE locking
     * destination first) would deadlock with it. Here the test holds the destination's lock; the BLPOP's key
     * must come free all the same.
     */
    @Test
    void aPopThatFindsDataServesTheOtherWaitersOnlyAfterReleasingItsKeys() throws Exception {
        String src = "held-src";
        String dst = StripeOrder.lockedBefore("held-dst", src);
        byte[] srcBytes = src.getBytes(StandardCharsets.UTF_8);
        try (Lettuce first = connect(ProtocolVersion.RESP2); Lettuce second = connect(ProtocolVersion.RESP2);
             Lettuce pusher = connect(ProtocolVersion.RESP2); Lettuce popper = connect(ProtocolVersion.RESP2);
             Lettuce reader = connect(ProtocolVersion.RESP2)) {
            RedisFuture<String> firstMove = first.async().blmove(src, dst, LMoveArgs.Builder.leftLeft(), 0);
            awaitWaiting(src, 1);
            RedisFuture<String> secondMove = second.async().blmove(src, dst, LMoveArgs.Builder.leftLeft(), 0);
            awaitWaiting(src, 2);
            RedisFuture<KeyValue<String, String>> pop;
            RedisFuture<Long> push;
            try (LockStripes.Held held = keyspace().lock(dst.getBytes(StandardCharsets.UTF_8))) {
                // The push's writer serves the first client and waits for dst there, holding no lock; the
                // second client is not offered the element yet.
                push = pusher.async().rpush(src, "x");
                awaitLength(reader, src, 1); // the push committed; its reply waits for the serve
                pop = popper.async().blpop(0, src);
                awaitLength(reader, src, 0); // the pop committed
                CompletableFuture<Void> srcLock = CompletableFuture.runAsync(() -> {
                    try (LockStripes.Held h = keyspace().lockAll(srcBytes)) {
                        // free: the BLPOP released it before any waiter was served
                    }
                }, r -> Thread.ofPlatform().start(r));
                srcLock.get(10, TimeUnit.SECONDS);
            }
            assertEquals(1, get(push));
            assertEquals(KeyValue.just(src, "x"), get(pop));
            assertEquals(2, keyspace().blocking().blockedCount(), "both clients still wait");
            assertEquals(2, reader.sync().rpush(src, "y", "z"));
            assertEquals("y", get(firstMove));
            assertEquals("z", get(secondMove));
        }
    }
}
