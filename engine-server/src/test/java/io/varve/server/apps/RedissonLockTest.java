package io.varve.server.apps;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redisson's RLock (a hash of owner to hold count with a PEXPIRE lease, and an unlock channel) on Varve. */
class RedissonLockTest extends RedissonAgainstVarve {

    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    @AfterAll
    void stopOtherThread() {
        otherThread.shutdownNow();
    }

    private boolean tryLockElsewhere(RLock lock) throws Exception {
        return otherThread.submit(() -> lock.tryLock(0, LONG_LEASE.toMillis(), TimeUnit.MILLISECONDS))
                .get(20, TimeUnit.SECONDS);
    }

    @Test
    void aLockIsReentrantAndExcludesOtherThreadsUntilUnlockedAsOftenAsLocked() throws Exception {
        RLock lock = first.getLock("reentrant");
        lock.lock(LONG_LEASE.toMillis(), TimeUnit.MILLISECONDS);
        lock.lock(LONG_LEASE.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(2, lock.getHoldCount());
        assertTrue(lock.isHeldByCurrentThread());

        assertFalse(tryLockElsewhere(lock), "another thread of the same client");
        assertFalse(second.getLock("reentrant").tryLock(0, 1000, TimeUnit.MILLISECONDS), "another client");

        lock.unlock();
        assertEquals(1, lock.getHoldCount());
        assertTrue(lock.isLocked());
        assertFalse(tryLockElsewhere(lock), "still held once");

        lock.unlock();
        assertFalse(lock.isLocked());
        assertTrue(tryLockElsewhere(lock), "free after the second unlock");
        otherThread.submit(lock::unlock).get(20, TimeUnit.SECONDS);
    }

    @Test
    void theLeaseIsTheKeysTtlAndExpiringItFreesTheLock() throws Exception {
        RLock lock = first.getLock("leased");
        assertTrue(lock.tryLock(0, 30_000, TimeUnit.MILLISECONDS));
        long ttl = lock.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 30_000, "remaining lease " + ttl);
        assertFalse(second.getLock("leased").tryLock(0, 1000, TimeUnit.MILLISECONDS));

        server.advance(Duration.ofSeconds(31));

        assertFalse(lock.isLocked());
        assertTrue(second.getLock("leased").tryLock(0, 30_000, TimeUnit.MILLISECONDS),
                "the other client takes the lock the lease let go");
        assertFalse(lock.isHeldByCurrentThread());
    }

    @Test
    void aWaiterIsWokenByTheUnlockMessage() throws Exception {
        RLock held = first.getLock("waited");
        held.lock(LONG_LEASE.toMillis(), TimeUnit.MILLISECONDS);
        RLock wanted = second.getLock("waited");
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return wanted.tryLock(60, LONG_LEASE.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, otherThread);
        String channel = "redisson_lock__channel:{waited}";
        awaitUntil("the waiter subscribed to " + channel,
                () -> plain().pubsubNumsub(channel).getOrDefault(channel, 0L) > 0);
        assertFalse(waiter.isDone());

        held.unlock();

        assertTrue(waiter.get(30, TimeUnit.SECONDS));
        assertTrue(held.isLocked());
        assertFalse(held.isHeldByCurrentThread(), "the waiter holds it now");
        otherThread.submit(wanted::unlock).get(20, TimeUnit.SECONDS);
    }
}
