package io.varve.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Redis's own test suite (engine-server/bench/redis-suite.sh) expects of commands Varve answered
 * differently: Redis's replies and Redis's error words, never an internal error.
 */
class SuiteFindingsTest extends OneServerPerClass {

    private RespClient c;

    @BeforeEach
    void connectClean() throws Exception {
        c = RespClient.connect(server.port());
        c.call("FLUSHALL");
    }

    @org.junit.jupiter.api.AfterEach
    void disconnect() throws Exception {
        c.close();
    }

    @Test
    void setrangeWithAHugeOffsetIsRefusedAsTooLarge() throws Exception {
        RespClient.Err tooLarge = new RespClient.Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        assertEquals(tooLarge, c.call("SETRANGE", "k", "9223372036854775807", "A"));
        assertEquals(tooLarge, c.call("SETRANGE", "k", "9223372036854775806", "AB"));
        assertEquals(tooLarge, c.call("SETRANGE", "k", "2147483647", "A"));
        assertEquals(0L, c.call("EXISTS", "k"));
    }

    @Test
    void expiretimeAnswersTheAbsoluteExpiry() throws Exception {
        assertEquals(-2L, c.call("EXPIRETIME", "k"));
        c.call("SET", "k", "v");
        assertEquals(-1L, c.call("PEXPIRETIME", "k"));
        c.call("PEXPIREAT", "k", "4102444800123");
        assertEquals(4102444800123L, c.call("PEXPIRETIME", "k"));
        assertEquals(4102444800L, c.call("EXPIRETIME", "k"));
    }

    @Test
    void memoryUsageEstimatesAKeyAndIsNilForAMissingOne() throws Exception {
        assertNull(c.call("MEMORY", "USAGE", "k"));
        c.call("SET", "k", "x".repeat(33000));
        long usage = (Long) c.call("MEMORY", "USAGE", "k", "SAMPLES", "5");
        assertTrue(usage > 33000 && usage < 42000, Long.toString(usage));
        c.call("HSET", "h", "f", "v");
        assertTrue((Long) c.call("MEMORY", "USAGE", "h") > 0);
        assertEquals(new RespClient.Err("ERR syntax error"), c.call("MEMORY", "USAGE", "k", "SAMPLES"));
        assertTrue(c.call("MEMORY", "STATS") instanceof List<?> stats && stats.contains("keys.count"));
        assertTrue(c.call("MEMORY", "DOCTOR") instanceof String);
    }

    @Test
    void objectEncodingFollowsTheConfiguredThresholds() throws Exception {
        try {
            c.call("HSET", "h", "a", "1", "b", "2", "c", "3");
            c.call("ZADD", "z", "1", "a", "2", "b", "3", "c");
            c.call("RPUSH", "l", "a", "b", "c");
            c.call("SADD", "ints", "1", "2", "3");
            c.call("SADD", "words", "a", "b", "c");
            assertEquals("listpack", c.call("OBJECT", "ENCODING", "h"));
            assertEquals("listpack", c.call("OBJECT", "ENCODING", "z"));
            assertEquals("intset", c.call("OBJECT", "ENCODING", "ints"));
            assertEquals("hashtable", c.call("OBJECT", "ENCODING", "words"), "Redis 7.0 has no listpack sets");
            assertEquals("quicklist", c.call("OBJECT", "ENCODING", "l"), "nor listpack lists");
            c.call("CONFIG", "SET", "hash-max-ziplist-entries", "2", "zset-max-listpack-entries", "2",
                    "set-max-intset-entries", "2");
            assertEquals("hashtable", c.call("OBJECT", "ENCODING", "h"));
            assertEquals("skiplist", c.call("OBJECT", "ENCODING", "z"));
            assertEquals("hashtable", c.call("OBJECT", "ENCODING", "ints"));
            c.call("CONFIG", "SET", "hash-max-listpack-entries", "512", "hash-max-listpack-value", "1");
            c.call("HSET", "h2", "f", "vv");
            assertEquals("hashtable", c.call("OBJECT", "ENCODING", "h2"), "a value longer than the limit");
        } finally {
            c.call("CONFIG", "SET", "hash-max-listpack-entries", "512", "hash-max-listpack-value", "64",
                    "zset-max-listpack-entries", "128", "set-max-intset-entries", "512");
        }
    }

    @Test
    void popWithTooManyArgumentsIsAnArityError() throws Exception {
        assertEquals(new RespClient.Err("ERR wrong number of arguments for 'lpop' command"),
                c.call("LPOP", "k", "1", "1"));
        assertEquals(new RespClient.Err("ERR wrong number of arguments for 'rpop' command"),
                c.call("RPOP", "k", "2", "2"));
    }

    @Test
    void hrandfieldPicksDistinctOrRepeatedFields() throws Exception {
        assertNull(c.call("HRANDFIELD", "h"));
        assertEquals(List.of(), c.call("HRANDFIELD", "h", "5"));
        c.call("HSET", "h", "a", "1", "b", "2", "c", "3");
        assertTrue(List.of("a", "b", "c").contains(c.call("HRANDFIELD", "h")));
        assertEquals(java.util.Set.of("a", "b", "c"), new java.util.HashSet<>((List<?>) c.call("HRANDFIELD", "h", "10")));
        assertEquals(7, ((List<?>) c.call("HRANDFIELD", "h", "-7")).size());
        List<?> pairs = (List<?>) c.call("HRANDFIELD", "h", "2", "WITHVALUES");
        assertEquals(4, pairs.size());
        assertEquals(Integer.toString("abc".indexOf((String) pairs.get(0)) + 1), pairs.get(1));
        assertEquals(List.of(), c.call("HRANDFIELD", "h", "0"));
        assertTrue(c.call("HRANDFIELD", "h", "-9223372036854775808") instanceof RespClient.Err e
                && e.text().startsWith("ERR value is out of range"));
    }

    @Test
    void aBlockedPopWaitsOnWhenItsKeyBecomesAnotherType() throws Exception {
        try (Lettuce blocked = connect(io.lettuce.core.protocol.ProtocolVersion.RESP2)) {
            var pop = blocked.async().bzpopmin(0, "z");
            assertTrue(server.server.keyspace().blocking()
                    .awaitWaiting("z".getBytes(java.nio.charset.StandardCharsets.UTF_8), 1, 10_000));
            c.call("MULTI");
            c.call("ZADD", "z", "0", "foo");
            c.call("DEL", "z");
            c.call("SET", "z", "foo");
            assertEquals(List.of(1L, 1L, "OK"), c.call("EXEC"));
            c.call("DEL", "z");
            c.call("ZADD", "z", "1", "bar");
            var got = pop.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals("z", got.getKey());
            assertEquals(io.lettuce.core.ScoredValue.just(1, "bar"), got.getValue());
        }
    }

    @Test
    void multiKeyCommandsUseRedisWordsForBadCountsAndLimits() throws Exception {
        assertEquals(new RespClient.Err("ERR numkeys should be greater than 0"), c.call("ZMPOP", "a", "z", "MIN"));
        assertEquals(new RespClient.Err("ERR count should be greater than 0"),
                c.call("ZMPOP", "1", "z", "MAX", "COUNT", "a"));
        assertEquals(new RespClient.Err("ERR LIMIT can't be negative"),
                c.call("ZINTERCARD", "1", "z", "LIMIT", "a"));
    }

    @Test
    void clientReplyOffAndSkipSilenceCommands() throws Exception {
        c.send("CLIENT", "REPLY", "OFF");
        c.send("SET", "k", "1");
        c.send("PING", "silenced");
        c.send("CLIENT", "REPLY", "ON");
        assertEquals("OK", c.read());
        assertEquals("1", c.call("GET", "k"));
        c.send("CLIENT", "REPLY", "SKIP");
        c.send("PING", "skipped");
        assertEquals("heard", c.call("PING", "heard"));
        c.send("CLIENT", "REPLY", "SKIP");
        assertEquals("OK", c.call("CLIENT", "REPLY", "ON"), "ON clears a pending SKIP and answers");
        assertEquals("PONG", c.call("PING"));
    }

    @Test
    void subscribingAnswersEvenWithRepliesOff() throws Exception {
        c.send("CLIENT", "REPLY", "OFF");
        assertEquals(List.of("subscribe", "ch", 1L), c.call("SUBSCRIBE", "ch"));
        try (RespClient publisher = RespClient.connect(server.port())) {
            assertEquals(1L, publisher.call("PUBLISH", "ch", "hi"));
        }
        assertEquals(List.of("message", "ch", "hi"), c.read());
    }

    @Test
    void clientKillFiltersAnswerInRedisWords() throws Exception {
        assertEquals(new RespClient.Err("ERR client-id should be greater than 0"),
                c.call("CLIENT", "KILL", "ID", "-1"));
        assertEquals(new RespClient.Err("ERR Unknown client type 'wrong_type'"),
                c.call("CLIENT", "KILL", "TYPE", "wrong_type"));
        assertEquals(0L, c.call("CLIENT", "KILL", "TYPE", "replica"));
    }

    @Test
    void infoCarriesTheFieldsClientsRead() throws Exception {
        String info = (String) c.call("INFO");
        assertTrue(info.contains("\r\nmaster_repl_offset:0\r\n"), info);
        assertTrue(info.contains("# Cluster\r\ncluster_enabled:0\r\n"), info);
        String cpu = (String) c.call("INFO", "cpu");
        assertTrue(!cpu.contains("master_repl_offset") && !cpu.contains("cluster_enabled"), cpu);
    }

    @Test
    void touchCountsExistingKeys() throws Exception {
        c.call("SET", "a", "1");
        c.call("SET", "b", "2");
        assertEquals(2L, c.call("TOUCH", "a", "b", "missing"));
    }

    @Test
    void randomkeyReturnsEveryKeySometimesAndNilWhenEmpty() throws Exception {
        assertNull(c.call("RANDOMKEY"));
        c.call("SET", "bar", "1");
        c.call("SET", "foo", "2");
        java.util.Set<Object> seen = new java.util.HashSet<>();
        for (int i = 0; i < 200 && seen.size() < 2; i++) {
            seen.add(c.call("RANDOMKEY"));
        }
        assertEquals(java.util.Set.of("bar", "foo"), seen);
    }

    @Test
    void randomkeyOfALargeDatabaseIsOneOfItsKeys() throws Exception {
        String[] mset = new String[1 + 2 * 1500];
        mset[0] = "MSET";
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (int i = 0; i < 1500; i++) {
            mset[1 + 2 * i] = "key:" + i;
            mset[2 + 2 * i] = "v";
            keys.add("key:" + i);
        }
        c.call(mset);
        java.util.Set<Object> seen = new java.util.HashSet<>();
        for (int i = 0; i < 50; i++) {
            Object key = c.call("RANDOMKEY");
            assertTrue(keys.contains(key), String.valueOf(key));
            seen.add(key);
        }
        assertTrue(seen.size() > 1, "a seek to a random point, not always the first key: " + seen);
    }

    @Test
    void dumpAndRestoreEveryTypeWithItsExpiry() throws Exception {
        c.call("SET", "s", "text");
        c.call("RPUSH", "l", "a", "b", "a");
        c.call("SADD", "set", "x", "y");
        c.call("HSET", "h", "f", "v", "g", "w");
        c.call("ZADD", "z", "1.5", "m", "-2", "n");
        c.call("PEXPIRE", "h", "100000000");
        try (Lettuce l = Lettuce.connect(server.port(), io.lettuce.core.protocol.ProtocolVersion.RESP2)) {
            var r = l.sync();
            for (String key : List.of("s", "l", "set", "h", "z")) {
                assertEquals("OK", r.restore(key + "2", 0, r.dump(key)));
            }
            assertNull(r.dump("missing"));
        }
        assertEquals("text", c.call("GET", "s2"));
        assertEquals(List.of("a", "b", "a"), c.call("LRANGE", "l2", "0", "-1"));
        assertEquals(2L, c.call("SCARD", "set2"));
        assertEquals(List.of("f", "v", "g", "w"), c.call("HGETALL", "h2"));
        assertEquals(List.of("n", "-2", "m", "1.5"), c.call("ZRANGE", "z2", "0", "-1", "WITHSCORES"));
        assertEquals(-1L, c.call("PTTL", "h2"), "RESTORE's ttl, not the dumped key's, applies");
    }

    @Test
    void restoreRefusesAsRedisDoes() throws Exception {
        c.call("SET", "s", "text");
        try (Lettuce l = Lettuce.connect(server.port(), io.lettuce.core.protocol.ProtocolVersion.RESP2)) {
            var r = l.sync();
            byte[] payload = r.dump("s");
            var busy = org.junit.jupiter.api.Assertions.assertThrows(
                    io.lettuce.core.RedisCommandExecutionException.class, () -> r.restore("s", 0, payload));
            assertEquals("BUSYKEY Target key name already exists.", busy.getMessage());
            assertEquals("OK", r.restore("s", payload, io.lettuce.core.RestoreArgs.Builder.ttl(100_000).replace()));
            assertTrue(r.pttl("s") > 0);
            var badTtl = org.junit.jupiter.api.Assertions.assertThrows(
                    io.lettuce.core.RedisCommandExecutionException.class, () -> r.restore("t", -1, payload));
            assertEquals("ERR Invalid TTL value, must be >= 0", badTtl.getMessage());
            assertEquals("OK", r.restore("s", payload, io.lettuce.core.RestoreArgs.Builder.ttl(1).replace().absttl()));
            assertEquals(0L, r.exists("s"), "an absolute expiry in the past deletes and creates nothing");
        }
        assertEquals(new RespClient.Err("ERR DUMP payload version or checksum are wrong"),
                c.call("RESTORE", "t", "0", "garbage"));
        assertEquals(new RespClient.Err("ERR syntax error"), c.call("RESTORE", "t", "0", "garbage", "NOPE"));
    }

    @Test
    void latencyHistogramCountsCallsPerCommandAndSubcommand() throws Exception {
        c.call("CONFIG", "RESETSTAT");
        c.call("SET", "a", "b");
        c.call("SET", "c", "d");
        c.call("CLIENT", "ID");
        List<?> all = (List<?>) c.call("LATENCY", "HISTOGRAM");
        java.util.Map<Object, Object> byName = new java.util.HashMap<>();
        for (int i = 0; i < all.size(); i += 2) {
            byName.put(all.get(i), all.get(i + 1));
        }
        assertEquals(java.util.Set.of("config|resetstat", "set", "client|id"), byName.keySet());
        assertEquals(List.of("calls", 2L), ((List<?>) byName.get("set")).subList(0, 2));
        List<?> client = (List<?>) c.call("LATENCY", "HISTOGRAM", "client", "nosuch");
        assertEquals(2, client.size());
        assertEquals("client|id", client.get(0));
        assertEquals(List.of(), c.call("LATENCY", "LATEST"));
        assertEquals(0L, c.call("LATENCY", "RESET"));
    }

    @Test
    void clientUnblockEndsABlockedCommandAsATimeoutOrAnError() throws Exception {
        try (RespClient blocked = RespClient.connect(server.port())) {
            long id = (Long) blocked.call("CLIENT", "ID");
            assertEquals(0L, c.call("CLIENT", "UNBLOCK", Long.toString(id)), "not blocked yet");
            blocked.send("BLPOP", "list", "0");
            assertTrue(server.server.keyspace().blocking()
                    .awaitWaiting("list".getBytes(java.nio.charset.StandardCharsets.UTF_8), 1, 10_000));
            assertEquals(1L, c.call("CLIENT", "UNBLOCK", Long.toString(id)));
            assertNull(blocked.read(), "as if its timeout had passed");
            blocked.send("BLPOP", "list", "0");
            assertTrue(server.server.keyspace().blocking()
                    .awaitWaiting("list".getBytes(java.nio.charset.StandardCharsets.UTF_8), 1, 10_000));
            assertEquals(1L, c.call("CLIENT", "UNBLOCK", Long.toString(id), "ERROR"));
            assertEquals(new RespClient.Err("UNBLOCKED client unblocked via CLIENT UNBLOCK"), blocked.read());
            assertEquals(0L, c.call("CLIENT", "UNBLOCK", Long.toString(id)));
        }
        assertEquals(new RespClient.Err("ERR value is not an integer or out of range"),
                c.call("CLIENT", "UNBLOCK", "asd"));
    }

    @Test
    void monitorSeesExecutedCommandsInOrderUntilReset() throws Exception {
        try (RespClient monitor = RespClient.connect(server.port())) {
            assertEquals("OK", monitor.call("MONITOR"));
            c.call("set", "foo", "bar"); // as sent: the line keeps the client's spelling
            c.call("get", "foo");
            c.call("multi");
            c.call("set", "foo", "q\"uote");
            c.call("exec");
            c.call("auth", "secret");
            String set = (String) monitor.read();
            assertTrue(set.matches("\\d+\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+\\] \"set\" \"foo\" \"bar\""), set);
            assertTrue(((String) monitor.read()).endsWith("\"get\" \"foo\""));
            assertTrue(((String) monitor.read()).endsWith("\"multi\""));
            assertTrue(((String) monitor.read()).endsWith("\"set\" \"foo\" \"q\\\"uote\""));
            assertTrue(((String) monitor.read()).endsWith("\"exec\""));
            assertTrue(((String) monitor.read()).endsWith("\"auth\" \"(redacted)\""));
            assertEquals("RESET", monitor.call("RESET"));
            c.call("PING");
            assertEquals("PONG", monitor.call("PING"), "no line for the PING after RESET");
        }
    }

    @Test
    void monitorShowsAScriptBeforeTheCommandsItCallsMarkedLua() throws Exception {
        c.call("function", "load", "replace", "#!lua name=mon\n"
                + "redis.register_function('mon', function() return redis.call('set', 'foo', 'baz') end)");
        try (RespClient monitor = RespClient.connect(server.port())) {
            assertEquals("OK", monitor.call("MONITOR"));
            c.call("eval", "redis.call('set', KEYS[1], ARGV[1])", "1", "foo", "bar");
            c.call("fcall", "mon", "0");
            assertTrue(((String) monitor.read()).matches("\\d+\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+\\] \"eval\" .*"));
            String inner = (String) monitor.read();
            assertTrue(inner.matches("\\d+\\.\\d{6} \\[0 lua\\] \"set\" \"foo\" \"bar\""), inner);
            assertTrue(((String) monitor.read()).endsWith("\"fcall\" \"mon\" \"0\""));
            assertTrue(((String) monitor.read()).endsWith("[0 lua] \"set\" \"foo\" \"baz\""));
            assertEquals("RESET", monitor.call("RESET"));
        }
    }

    @Test
    void hincrbyfloatRefusesAnInfiniteIncrementInRedisWords() throws Exception {
        assertEquals(new RespClient.Err("ERR value is NaN or Infinity"), c.call("HINCRBYFLOAT", "h", "f", "+inf"));
        assertEquals(0L, c.call("EXISTS", "h"));
    }
}
