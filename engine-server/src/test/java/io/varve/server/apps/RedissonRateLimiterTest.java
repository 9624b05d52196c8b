package io.varve.server.apps;

import org.junit.jupiter.api.Test;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redisson's RRateLimiter (a hash of settings, a counter and a sorted set of granted permits, all kept by Lua
 * scripts using {@code struct.pack}) on Varve. The interval is an hour so no permit comes back during a test;
 * the assertions are counts, never timing.
 */
class RedissonRateLimiterTest extends RedissonAgainstVarve {

    @Test
    void permitsBeyondTheRateAreRefusedForEveryClient() {
        RRateLimiter limiter = first.getRateLimiter("limited");
        assertTrue(limiter.trySetRate(RateType.OVERALL, 3, Duration.ofHours(1)));
        assertFalse(second.getRateLimiter("limited").trySetRate(RateType.OVERALL, 10, Duration.ofHours(1)),
                "the rate is set once");

        int granted = 0;
        for (int i = 0; i < 5; i++) {
            if (limiter.tryAcquire()) granted++;
        }
        assertEquals(3, granted);
        assertFalse(second.getRateLimiter("limited").tryAcquire(), "the rate is shared by all clients");
        assertEquals(0, limiter.availablePermits());
        assertEquals(3, limiter.getConfig().getRate());
    }

    @Test
    void aRequestLargerThanTheRemainderIsRefusedWholeAndOneLargerThanTheRateIsAnError() {
        RRateLimiter limiter = first.getRateLimiter("batches");
        assertTrue(limiter.trySetRate(RateType.OVERALL, 5, Duration.ofHours(1)));
        assertTrue(limiter.tryAcquire(3));
        assertFalse(limiter.tryAcquire(3));
        assertEquals(2, limiter.availablePermits());
        assertTrue(limiter.tryAcquire(2));

        RuntimeException e = assertThrows(RuntimeException.class, () -> limiter.tryAcquire(6));
        assertTrue(String.valueOf(e.getMessage()).contains("Requested permits amount cannot exceed defined rate"),
                e.getMessage());
    }

    @Test
    void perClientRatesCountEachClientApart() {
        RRateLimiter mine = first.getRateLimiter("per-client");
        assertTrue(mine.trySetRate(RateType.PER_CLIENT, 2, Duration.ofHours(1)));
        RRateLimiter theirs = second.getRateLimiter("per-client");

        assertTrue(mine.tryAcquire(2));
        assertFalse(mine.tryAcquire());
        assertTrue(theirs.tryAcquire(2));
        assertFalse(theirs.tryAcquire());
    }
}
