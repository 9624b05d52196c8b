package io.varve.server;

import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PFADD, PFCOUNT and PFMERGE side by side with redis-server: the same commands must leave byte-identical
 * strings (sparse, through promotion, dense, with the cardinality cache) and answer the same counts; a
 * string taken from redis-server must keep counting here; errors use redis-server's words.
 */
class HyperLogLogTest extends OneServerPerClass {

    private RealRedis redis;
    private RealRedis.Binary real;
    private RealRedis.Binary varve;

    @BeforeAll
    void startRedis(@TempDir Path dir) throws Exception {
        redis = RealRedis.start(dir);
        real = RealRedis.Binary.connect(redis.port());
        varve = RealRedis.Binary.connect(server.port());
    }

    @AfterAll
    void stopRedis() {
        if (varve != null) {
            varve.close();
        }
        if (real != null) {
            real.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void empty() {
        real.sync().flushall();
        varve.sync().flushall();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[][] elements(Random random, int count, String prefix) {
        byte[][] out = new byte[count][];
        for (int i = 0; i < count; i++) {
            out[i] = b(prefix + random.nextInt(1_000_000_000) + ":" + i);
        }
        return out;
    }

    private void assertSameValue(String key, String when) {
        byte[] expected = real.sync().get(b(key));
        byte[] actual = varve.sync().get(b(key));
        assertEquals(HexFormat.of().formatHex(expected), HexFormat.of().formatHex(actual), key + " " + when);
    }

    /** Runs one command on both servers and asserts they answer alike. */
    private long pfadd(String key, byte[]... values) {
        long expected = real.sync().pfadd(b(key), values);
        assertEquals(expected, varve.sync().pfadd(b(key), values), "PFADD " + key);
        return expected;
    }

    private long pfcount(String... keys) {
        byte[][] k = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            k[i] = b(keys[i]);
        }
        long expected = real.sync().pfcount(k);
        assertEquals(expected, varve.sync().pfcount(k), "PFCOUNT " + List.of(keys));
        return expected;
    }

    @Test
    void sparseThroughDensePromotionIsByteForByteRedis() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        try (RespClient r = RespClient.connect(redis.port()); RespClient v = RespClient.connect(server.port())) {
            assertEquals(1L, r.call("PFADD", "h"));
            assertEquals(1L, v.call("PFADD", "h"), "a new key counts as an update");
            assertEquals(0L, v.call("PFADD", "h"));
        }
        assertSameValue("h", "created empty");
        int total = 0;
        // At least 40 batches, and on until the sparse encoding must have turned dense (the sizes are random).
        for (int batch = 0; batch < 40 || total <= 3000; batch++) {
            int size = 1 + random.nextInt(batch < 20 ? 20 : 400);
            byte[][] values = elements(random, size, "e");
            pfadd("h", values);
            total += size;
            assertSameValue("h", "after " + total + " elements (seed " + seed + ")");
            if (batch % 3 == 0) {
                pfcount("h");
                assertSameValue("h", "after PFCOUNT cached the cardinality (seed " + seed + ")");
            }
            // Repeating an element changes nothing, and both servers say so.
            assertEquals(0, pfadd("h", values[0]));
        }
        assertTrue(total > 3000, "enough elements to turn the HLL dense");
        assertEquals(HexFormat.of().formatHex(b("HYLL")),
                HexFormat.of().formatHex(java.util.Arrays.copyOf(varve.sync().get(b("h")), 4)));
        long count = pfcount("h");
        assertTrue(Math.abs(count - total) < total * 0.05, count + " vs " + total);
    }

    @Test
    void smallSetsCountNearlyExactlyAndEqualRedis() {
        for (int n = 1; n <= 300; n++) {
            pfadd("s", b("member-" + n));
            long count = pfcount("s");
            assertTrue(Math.abs(count - n) <= Math.max(1, n / 50), n + " counted as " + count);
        }
    }

    @Test
    void mergeAndUnionCountMatchRedisForSparseAndDense() {
        Random random = new Random(7);
        pfadd("sparse1", elements(random, 50, "a"));
        pfadd("sparse2", elements(random, 80, "b"));
        pfadd("dense", elements(random, 5000, "c"));
        pfcount("sparse1", "sparse2");
        pfcount("sparse1", "dense", "missing");
        assertSameValue("sparse1", "a multi-key PFCOUNT writes nothing");

        for (var c : List.of(real, varve)) {
            assertEquals("OK", c.sync().pfmerge(b("m1"), b("sparse1"), b("sparse2")));
            assertEquals("OK", c.sync().pfmerge(b("m2"), b("sparse1"), b("dense")));
            assertEquals("OK", c.sync().pfmerge(b("sparse2"), b("sparse1")));
            assertEquals("OK", c.sync().pfmerge(b("empty"), b("nothing")));
        }
        for (String key : List.of("m1", "m2", "sparse2", "empty")) {
            assertSameValue(key, "after PFMERGE");
            pfcount(key);
        }
    }

    @Test
    void aStringWrittenByRedisKeepsCountingHere() {
        Random random = new Random(11);
        for (int size : new int[] {30, 6000}) {
            real.sync().pfadd(b("from-redis"), elements(random, size, "r"));
            varve.sync().set(b("from-redis"), real.sync().get(b("from-redis")));
            pfcount("from-redis");
            pfadd("from-redis", elements(random, 100, "more"));
            assertSameValue("from-redis", "extended after the copy, size " + size);
            pfcount("from-redis");
        }
    }

    @Test
    void expiryOfTheKeySurvivesPfadd() {
        varve.sync().pfadd(b("t"), b("a"));
        varve.sync().expire(b("t"), 1000);
        varve.sync().pfadd(b("t"), b("b"), b("c"));
        assertTrue(varve.sync().ttl(b("t")) > 0);
        assertEquals(3, varve.sync().pfcount(b("t")));
    }

    @Test
    void errorsAreRedisWords() throws Exception {
        List<String[]> setups = List.of(
                new String[] {"SET", "str", "hello"},
                new String[] {"SET", "num", "123"},
                new String[] {"RPUSH", "list", "x"},
                new String[] {"SET", "corrupt", "HYLL\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0001"},
                new String[] {"SET", "badenc", "HYLL\u0005\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000"},
                new String[] {"SET", "shortdense", "HYLL\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000ab"});
        List<String[]> probes = new ArrayList<>();
        for (String key : List.of("str", "num", "list", "corrupt", "badenc", "shortdense")) {
            probes.add(new String[] {"PFADD", key, "x"});
            probes.add(new String[] {"PFCOUNT", key});
            probes.add(new String[] {"PFCOUNT", key, "other"});
            probes.add(new String[] {"PFMERGE", "dest", key});
        }
        probes.add(new String[] {"PFDEBUG", "encoding", "nokey"});
        probes.add(new String[] {"PFADD"});
        try (RespClient r = RespClient.connect(redis.port()); RespClient v = RespClient.connect(server.port())) {
            for (String[] setup : setups) {
                r.call(setup);
                v.call(setup);
            }
            for (String[] probe : probes) {
                assertEquals(r.call(probe), v.call(probe), String.join(" ", probe));
            }
            r.call("PFADD", "d", "a", "b", "c");
            v.call("PFADD", "d", "a", "b", "c");
            for (String[] probe : List.<String[]>of(new String[] {"PFDEBUG", "encoding", "d"},
                    new String[] {"PFDEBUG", "decode", "d"}, new String[] {"PFDEBUG", "todense", "d"},
                    new String[] {"PFDEBUG", "todense", "d"}, new String[] {"PFDEBUG", "encoding", "d"},
                    new String[] {"PFDEBUG", "decode", "d"}, new String[] {"PFDEBUG", "nope", "d"},
                    new String[] {"PFCOUNT", "d"}, new String[] {"PFSELFTEST"})) {
                assertEquals(r.call(probe), v.call(probe), String.join(" ", probe));
            }
            assertEquals(r.call("PFDEBUG", "getreg", "d"), v.call("PFDEBUG", "getreg", "d"));
        }
        assertArrayEquals(real.sync().get(b("d")), varve.sync().get(b("d")));
    }
}
