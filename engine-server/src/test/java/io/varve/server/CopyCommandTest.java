package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** COPY source destination [DB n] [REPLACE], with Redis 7's replies and error words, checked on raw RESP. */
class CopyCommandTest extends OneServerPerClass {

    @BeforeEach
    void empty() throws Exception {
        try (RespClient r = RespClient.connect(server.port())) {
            assertEquals("OK", r.call("FLUSHALL"));
        }
    }

    @Test
    void copiesIntoTheDatabaseItNames() throws Exception {
        try (RespClient r = RespClient.connect(server.port()); RespClient db0 = RespClient.connect(server.port())) {
            assertEquals("OK", r.call("SELECT", "1"));
            assertEquals("OK", r.call("SET", "ca", "x"));
            assertEquals(1L, r.call("COPY", "ca", "cb", "DB", "0"));
            assertEquals("x", db0.call("GET", "cb"));
            assertEquals(0L, r.call("EXISTS", "cb"), "nothing lands in the current database");
            assertEquals(1L, r.call("COPY", "ca", "cc", "DB", "1"));
            assertEquals("x", r.call("GET", "cc"));
            assertEquals(1L, r.call("COPY", "ca", "ca", "db", "2"), "the same name in another database");
            assertEquals("OK", db0.call("SELECT", "2"));
            assertEquals("x", db0.call("GET", "ca"));
        }
    }

    @Test
    void refusesWhatRedisRefusesWithItsWords() throws Exception {
        try (RespClient r = RespClient.connect(server.port())) {
            assertEquals("OK", r.call("SELECT", "1"));
            assertEquals("OK", r.call("SET", "ca", "x"));
            assertEquals(err("ERR DB index is out of range"), r.call("COPY", "ca", "cd", "DB", "16"));
            assertEquals(err("ERR DB index is out of range"), r.call("COPY", "ca", "cd", "DB", "-1"));
            assertEquals(err("ERR value is not an integer or out of range"), r.call("COPY", "ca", "cd", "DB", "x"));
            assertEquals(err("ERR syntax error"), r.call("COPY", "ca", "cd", "DB"));
            assertEquals(err("ERR syntax error"), r.call("COPY", "ca", "cd", "FOO"));
            assertEquals(err("ERR source and destination objects are the same"), r.call("COPY", "ca", "ca"));
            assertEquals(err("ERR source and destination objects are the same"), r.call("COPY", "ca", "ca", "DB", "1"));
            assertEquals(0L, r.call("EXISTS", "cd"));
        }
    }

    @Test
    void replaceOverwritesAKeyOfAnyTypeInTheTargetDatabase() throws Exception {
        try (RespClient r = RespClient.connect(server.port()); RespClient db3 = RespClient.connect(server.port())) {
            assertEquals(3L, r.call("RPUSH", "l", "a", "b", "c"));
            assertEquals("OK", db3.call("SELECT", "3"));
            assertEquals(1L, db3.call("HSET", "l", "f", "v"));
            assertEquals(0L, r.call("COPY", "l", "l", "DB", "3"), "the destination exists");
            assertEquals("hash", db3.call("TYPE", "l"));
            assertEquals(1L, r.call("COPY", "l", "l", "DB", "3", "REPLACE"));
            assertEquals(List.of("a", "b", "c"), db3.call("LRANGE", "l", "0", "-1"));
            assertEquals(4L, db3.call("LPUSH", "l", "z"), "the copy is independent of its source");
            assertEquals(List.of("a", "b", "c"), r.call("LRANGE", "l", "0", "-1"));
            assertEquals(0L, r.call("COPY", "missing", "l", "DB", "3", "REPLACE"));
        }
    }

    @Test
    void aCopyServesAClientBlockedInTheTargetDatabase() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); RespClient r = RespClient.connect(server.port());
             RespClient db2 = RespClient.connect(server.port())) {
            blocked.sync().select(2);
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "l");
            assertTrue(server.server.keyspace().blocking()
                    .awaitWaiting("l".getBytes(StandardCharsets.UTF_8), 1, 10_000));
            assertEquals(2L, r.call("RPUSH", "l", "a", "b"));
            assertEquals(1L, r.call("COPY", "l", "l", "DB", "2"));
            assertEquals(KeyValue.just("l", "a"), pop.get(10, TimeUnit.SECONDS));
            assertEquals("OK", db2.call("SELECT", "2"));
            assertEquals(List.of("b"), db2.call("LRANGE", "l", "0", "-1"));
            assertEquals(List.of("a", "b"), r.call("LRANGE", "l", "0", "-1"));
        }
    }

    @Test
    void aCopyMarksTheWatchersOfItsDestinationInTheTargetDatabase() throws Exception {
        try (RespClient r = RespClient.connect(server.port()); RespClient watcher = RespClient.connect(server.port())) {
            assertEquals("OK", r.call("SET", "k", "v"));
            assertEquals("OK", watcher.call("SELECT", "4"));
            assertEquals("OK", watcher.call("WATCH", "k"));
            assertEquals(1L, r.call("COPY", "k", "k", "DB", "4"));
            assertEquals("OK", watcher.call("MULTI"));
            assertEquals("QUEUED", watcher.call("GET", "k"));
            assertNull(watcher.call("EXEC"), "k of database 4 was written after WATCH");
        }
    }

    private static RespClient.Err err(String text) {
        return new RespClient.Err(text);
    }
}
