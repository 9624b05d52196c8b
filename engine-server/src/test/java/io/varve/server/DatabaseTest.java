package io.varve.server;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SELECT's databases: isolated, swapped by SWAPDB, flushed one at a time, moved between, kept over restarts. */
class DatabaseTest {

    @TempDir
    Path dir;

    @Test
    void databasesAreIsolated() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("SET", "k", "zero"));
            assertEquals("OK", c.call("SELECT", "1"));
            assertNull(c.call("GET", "k"));
            assertEquals("OK", c.call("SET", "k", "one"));
            assertEquals(1L, c.call("HSET", "h", "f", "one"));
            assertEquals(2L, c.call("DBSIZE"));
            assertEquals(List.of("h", "k"), sorted(c.call("KEYS", "*")));
            assertEquals("OK", c.call("SELECT", "0"));
            assertEquals("zero", c.call("GET", "k"));
            assertEquals(0L, c.call("HLEN", "h"));
            assertEquals(1L, c.call("DBSIZE"));
            try (RespClient other = RespClient.connect(server.port())) {
                assertEquals("zero", other.call("GET", "k"), "a new connection starts in database 0");
            }
            assertEquals(new RespClient.Err("ERR DB index is out of range"), c.call("SELECT", "16"));
            assertEquals(new RespClient.Err("ERR DB index is out of range"), c.call("SELECT", "-1"));
            assertEquals(new RespClient.Err("ERR value is not an integer or out of range"), c.call("SELECT", "x"));
            String keyspace = (String) c.call("INFO", "keyspace");
            assertTrue(keyspace.contains("db0:keys=1,expires=0,avg_ttl=0"), keyspace);
            assertTrue(keyspace.contains("db1:keys=2,expires=0,avg_ttl=0"), keyspace);
        }
    }

    @Test
    void flushdbClearsOneDatabaseAndFlushallAll() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("SET", "a", "0");
            c.call("SELECT", "2");
            c.call("SET", "a", "2");
            c.call("HSET", "h", "f", "v");
            assertEquals("OK", c.call("FLUSHDB"));
            assertEquals(0L, c.call("DBSIZE"));
            assertEquals(0L, c.call("HLEN", "h"));
            c.call("SELECT", "0");
            assertEquals("0", c.call("GET", "a"), "other databases keep their keys");
            c.call("SELECT", "3");
            c.call("SET", "b", "3");
            assertEquals("OK", c.call("FLUSHALL"));
            assertEquals(0L, c.call("DBSIZE"));
            c.call("SELECT", "0");
            assertEquals(0L, c.call("DBSIZE"));
        }
    }

    @Test
    void swapdbSwapsForEveryConnection() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient a = RespClient.connect(server.port());
             RespClient b = RespClient.connect(server.port())) {
            a.call("SET", "k", "in0");
            a.call("SELECT", "1");
            a.call("SET", "k", "in1");
            a.call("HSET", "h", "f", "hash1");
            assertEquals("OK", b.call("SWAPDB", "0", "1"));
            assertEquals("in0", a.call("GET", "k"), "a stays in database 1, which now holds the old 0");
            assertEquals("in1", b.call("GET", "k"));
            assertEquals("hash1", b.call("HGET", "h", "f"));
            assertEquals(new RespClient.Err("ERR DB index is out of range"), b.call("SWAPDB", "0", "99"));
            assertEquals(new RespClient.Err("ERR invalid first DB index"), b.call("SWAPDB", "x", "1"));
            assertEquals(new RespClient.Err("ERR invalid second DB index"), b.call("SWAPDB", "1", "y"));
        }
    }

    @Test
    void swapdbAbortsTransactionsWatchingEitherDatabase() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient a = RespClient.connect(server.port());
             RespClient b = RespClient.connect(server.port())) {
            assertEquals("OK", a.call("WATCH", "k"));
            assertEquals("OK", b.call("SWAPDB", "0", "1"));
            a.call("MULTI");
            a.call("GET", "k");
            assertNull(a.call("EXEC"));
        }
    }

    @Test
    void moveTakesStringsAndCollectionsWhole() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("SET", "s", "v", "EX", "100");
            c.call("HSET", "h", "f1", "a", "f2", "b");
            assertEquals(1L, c.call("MOVE", "s", "4"));
            assertEquals(1L, c.call("MOVE", "h", "4"));
            assertEquals(0L, c.call("MOVE", "missing", "4"));
            assertEquals(new RespClient.Err("ERR source and destination objects are the same"), c.call("MOVE", "s", "0"));
            assertEquals(0L, c.call("EXISTS", "s", "h"));
            c.call("SELECT", "4");
            assertEquals("v", c.call("GET", "s"));
            assertTrue((Long) c.call("TTL", "s") > 0, "the expiry moves too");
            assertEquals(Map.of("f1", "a", "f2", "b"), pairs(c.call("HGETALL", "h")));
            c.call("SELECT", "0");
            c.call("SET", "s", "again");
            assertEquals(0L, c.call("MOVE", "s", "4"), "the destination already has the key");
            assertEquals("again", c.call("GET", "s"));
        }
    }

    @Test
    void databasesSurviveRestart() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("SET", "k", "zero");
            c.call("SELECT", "1");
            c.call("SET", "k", "one");
            c.call("HSET", "h", "f", "one");
            c.call("SELECT", "2");
            c.call("SET", "gone", "x");
            c.call("FLUSHDB");
            c.call("SWAPDB", "1", "5");
        }
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("zero", c.call("GET", "k"));
            c.call("SELECT", "1");
            assertEquals(0L, c.call("DBSIZE"));
            c.call("SELECT", "5");
            assertEquals("one", c.call("GET", "k"));
            assertEquals("one", c.call("HGET", "h", "f"));
            c.call("SELECT", "2");
            assertEquals(0L, c.call("DBSIZE"));
        }
    }

    /** Compaction keeps the fields of a hash in any database and drops those of a flushed database's hash. */
    @Test
    void compactionJudgesSubkeysAgainstEveryDatabase() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("SELECT", "3");
            c.call("HSET", "kept", "f", "v");
            c.call("SELECT", "4");
            c.call("HSET", "flushed", "f", "v");
            c.call("FLUSHDB");
            server.server.db().compactRange(null, null);
            String info = (String) c.call("INFO", "varve");
            assertTrue(info.contains("compaction_dead_subkeys:1\r\n"), info);
            c.call("SELECT", "3");
            assertEquals("v", c.call("HGET", "kept", "f"));
        }
    }

    /**
     * Records written in the layout of the release before databases existed (metadata key 'm' + key; a hash's
     * fields under 's', key length, key, version) are read as database 0. The bytes are spelled out here rather
     * than built with KeyEncoding, so a change to database 0's layout fails this test.
     */
    @Test
    void databaseZeroReadsTheEarlierReleasesLayout() throws Exception {
        try (Db db = Db.open(dir, Options.defaults())) {
            WriteBatch batch = new WriteBatch();
            batch.put(ascii("mold"), concat(new byte[] {0}, new byte[8], ascii("value")));
            long version = 7;
            ByteBuffer hashMeta = ByteBuffer.allocate(25).put((byte) 1).putLong(0).putLong(version).putLong(1);
            batch.put(ascii("mhash"), hashMeta.array());
            ByteBuffer field = ByteBuffer.allocate(1 + 4 + 4 + 8 + 1);
            field.put((byte) 's').putInt(4).put(ascii("hash")).putLong(version).put(ascii("f"));
            batch.put(field.array(), ascii("fv"));
            db.write(batch, WriteOptions.SYNC);
        }
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("value", c.call("GET", "old"));
            assertEquals("fv", c.call("HGET", "hash", "f"));
            assertEquals(2L, c.call("DBSIZE"));
            c.call("SELECT", "1");
            assertEquals(0L, c.call("DBSIZE"));
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuffer b = ByteBuffer.allocate(Arrays.stream(parts).mapToInt(p -> p.length).sum());
        for (byte[] p : parts) {
            b.put(p);
        }
        return b.array();
    }

    private static List<Object> sorted(Object list) {
        return ((List<?>) list).stream().map(Object.class::cast).sorted((x, y) -> x.toString().compareTo(y.toString())).toList();
    }

    private static Map<Object, Object> pairs(Object flat) {
        List<?> l = (List<?>) flat;
        Map<Object, Object> m = new HashMap<>();
        for (int i = 0; i < l.size(); i += 2) {
            m.put(l.get(i), l.get(i + 1));
        }
        return m;
    }
}
