package io.varve.server.apps;

import org.junit.jupiter.api.Test;
import org.redisson.api.RMapCache;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redisson's RMapCache on Varve: a hash of values, a sorted set of per-entry expiry times, and Lua scripts that
 * compare those times with the client's clock (Redisson passes its own {@code System.currentTimeMillis()} to
 * every script). The server's clock plays no part, so an entry's expiry is shown by letting the client's clock
 * pass a very short TTL rather than by advancing the server's.
 */
class RedissonMapCacheTest extends RedissonAgainstVarve {

    @Test
    void anEntrysTtlIsTheOneRedissonSetAndOtherEntriesKeepNone() {
        RMapCache<String, String> cache = first.getMapCache("sessions");
        cache.put("alice", "1", 1, TimeUnit.HOURS);
        cache.put("bob", "2");

        long remaining = cache.remainTimeToLive("alice");
        assertTrue(remaining > 0 && remaining <= TimeUnit.HOURS.toMillis(1), "remaining " + remaining);
        assertEquals(-1, cache.remainTimeToLive("bob"), "an entry without TTL");
        assertEquals(-2, cache.remainTimeToLive("carol"), "no such entry");
        assertEquals("1", second.<String, String>getMapCache("sessions").get("alice"));
        assertEquals(2, cache.size());
        assertEquals(1L, plain().zcard("redisson__timeout__set:{sessions}"));
    }

    @Test
    void anEntryIsGoneOnceItsTtlHasPassed() {
        RMapCache<String, String> cache = first.getMapCache("short-lived");
        long before = System.currentTimeMillis();
        cache.put("brief", "x", 1, TimeUnit.MILLISECONDS);
        cache.put("lasting", "y", 1, TimeUnit.HOURS);
        waitForTheClientClockToPass(before + 2);

        assertNull(cache.get("brief"));
        assertFalse(cache.containsKey("brief"));
        assertEquals(-2, cache.remainTimeToLive("brief"));
        assertEquals("y", cache.get("lasting"));
        assertEquals(1, cache.readAllMap().size(), "whole-map reads skip the expired entry");
    }

    @Test
    void fastPutIfAbsentAndRemoveKeepTheTimeoutSetInStep() {
        RMapCache<String, String> cache = first.getMapCache("tokens");
        assertTrue(cache.fastPutIfAbsent("t1", "a", 1, TimeUnit.HOURS));
        assertFalse(cache.fastPutIfAbsent("t1", "b", 1, TimeUnit.HOURS));
        assertEquals("a", cache.remove("t1"));
        assertEquals(0L, plain().zcard("redisson__timeout__set:{tokens}"));
        assertEquals(0, cache.size());
    }

    /** The TTL is judged by the clock Redisson reads, so the test waits for that clock, not for any thread. */
    private static void waitForTheClientClockToPass(long millis) {
        while (System.currentTimeMillis() <= millis) {
            Thread.onSpinWait();
        }
    }
}
