package io.varve.server.apps;

import org.junit.jupiter.api.Test;
import org.redisson.api.RSemaphore;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redisson's RSemaphore (a counter changed by scripts, with a channel that wakes waiting acquirers) on Varve. */
class RedissonSemaphoreTest extends RedissonAgainstVarve {

    @Test
    void permitsAreSharedBetweenClients() {
        RSemaphore mine = first.getSemaphore("permits");
        RSemaphore theirs = second.getSemaphore("permits");
        assertTrue(mine.trySetPermits(2));
        assertFalse(theirs.trySetPermits(5), "permits are set once");

        assertTrue(mine.tryAcquire(2));
        assertEquals(0, theirs.availablePermits());
        assertFalse(theirs.tryAcquire());

        mine.release();
        assertTrue(theirs.tryAcquire());
        assertFalse(mine.tryAcquire());

        theirs.release();
        mine.release();
        assertEquals(2, mine.availablePermits());
        assertEquals("2", plain().get("permits"));
    }

    @Test
    void aBlockedAcquireIsWokenByAnotherClientsRelease() throws Exception {
        RSemaphore mine = first.getSemaphore("waited-permits");
        RSemaphore theirs = second.getSemaphore("waited-permits");
        assertTrue(mine.trySetPermits(1));
        mine.acquire();

        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
            try {
                theirs.acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        String channel = "redisson_sc:{waited-permits}";
        awaitUntil("the waiter subscribed to " + channel,
                () -> plain().pubsubNumsub(channel).getOrDefault(channel, 0L) > 0);
        assertFalse(waiter.isDone());

        mine.release();

        waiter.get(30, TimeUnit.SECONDS);
        assertEquals(0, mine.availablePermits());
        theirs.release();
    }
}
