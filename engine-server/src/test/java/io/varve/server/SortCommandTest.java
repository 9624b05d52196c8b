package io.varve.server;

import io.lettuce.core.SortArgs;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SORT and SORT_RO: the same data and command lines sent to redis-server and to Varve must get the same
 * replies (orders, BY and GET patterns, LIMIT edges, STORE, errors); WATCH sees STORE's destination.
 */
class SortCommandTest extends OneServerPerClass {

    private RealRedis redis;

    @BeforeAll
    void startRedis(@TempDir Path dir) throws Exception {
        redis = RealRedis.start(dir);
    }

    @AfterAll
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static final List<String[]> DATA = List.of(
            new String[] {"RPUSH", "nums", "3", "10", "1", "2.5", "-4", "10", "0"},
            new String[] {"RPUSH", "words", "pear", "apple", "Zebra", "fig", "10", "2"},
            new String[] {"RPUSH", "bad", "1", "two", "3"},
            new String[] {"RPUSH", "ids", "1", "2", "3", "4", "5"},
            new String[] {"MSET", "w_1", "50", "w_2", "20", "w_3", "20", "w_4", "x", "o_1", "one", "o_2", "two", "o_3", "three"},
            new String[] {"HSET", "h_1", "age", "30", "name", "ann"},
            new String[] {"HSET", "h_2", "age", "25", "name", "bob"},
            new String[] {"HSET", "h_3", "age", "35"},
            new String[] {"SADD", "set", "5", "3", "9", "1", "7"},
            new String[] {"ZADD", "zs", "3", "c", "1", "a", "2", "b", "2", "bb"},
            new String[] {"SET", "str", "x"},
            new String[] {"RPUSH", "nan", "1", "nan"});

    private static final List<String[]> PROBES = List.of(
            new String[] {"SORT", "nums"},
            new String[] {"SORT", "nums", "DESC"},
            new String[] {"SORT", "nums", "LIMIT", "1", "3"},
            new String[] {"SORT", "nums", "LIMIT", "-5", "2"},
            new String[] {"SORT", "nums", "LIMIT", "5", "-1"},
            new String[] {"SORT", "nums", "LIMIT", "100", "5"},
            new String[] {"SORT", "nums", "LIMIT", "0", "0"},
            new String[] {"SORT", "nums", "LIMIT", "x", "1"},
            new String[] {"SORT", "words", "ALPHA"},
            new String[] {"SORT", "words", "ALPHA", "DESC", "LIMIT", "1", "2"},
            new String[] {"SORT", "words"},
            new String[] {"SORT", "bad"},
            new String[] {"SORT", "nan"},
            new String[] {"SORT", "ids", "BY", "w_*"},
            new String[] {"SORT", "ids", "BY", "w_*", "DESC"},
            new String[] {"SORT", "ids", "BY", "w_*", "ALPHA"},
            new String[] {"SORT", "ids", "BY", "w_*", "GET", "#", "GET", "o_*"},
            new String[] {"SORT", "ids", "BY", "h_*->age", "GET", "h_*->name", "GET", "#"},
            new String[] {"SORT", "ids", "BY", "h_*->age", "ALPHA", "DESC"},
            new String[] {"SORT", "ids", "BY", "nosort", "GET", "o_*"},
            new String[] {"SORT", "ids", "BY", "nosort", "DESC", "LIMIT", "1", "2"},
            new String[] {"SORT", "ids", "GET", "nostar"},
            new String[] {"SORT", "ids", "GET", "h_*->"},
            new String[] {"SORT", "zs"},
            new String[] {"SORT", "zs", "ALPHA"},
            new String[] {"SORT", "zs", "BY", "nosort"},
            new String[] {"SORT", "zs", "BY", "nosort", "DESC"},
            new String[] {"SORT", "zs", "BY", "nosort", "LIMIT", "1", "2"},
            new String[] {"SORT", "set"},
            new String[] {"SORT", "set", "DESC", "LIMIT", "0", "2"},
            new String[] {"SORT", "missing"},
            new String[] {"SORT", "str"},
            new String[] {"SORT", "nums", "FOO"},
            new String[] {"SORT", "nums", "LIMIT", "1"},
            new String[] {"SORT_RO", "nums", "DESC"},
            new String[] {"SORT_RO", "nums", "STORE", "dst"},
            new String[] {"SORT", "nums", "STORE", "dst"},
            new String[] {"LRANGE", "dst", "0", "-1"},
            new String[] {"SORT", "ids", "BY", "w_*", "GET", "o_*", "STORE", "dst2"},
            new String[] {"LRANGE", "dst2", "0", "-1"},
            new String[] {"SORT", "set", "BY", "nosort", "STORE", "dst3"},
            new String[] {"LRANGE", "dst3", "0", "-1"},
            new String[] {"SET", "dst4", "old"},
            new String[] {"SORT", "missing", "STORE", "dst4"},
            new String[] {"EXISTS", "dst4"},
            new String[] {"SORT", "nums", "STORE", "nums"},
            new String[] {"LRANGE", "nums", "0", "-1"},
            new String[] {"COMMAND", "GETKEYS", "SORT", "a", "BY", "store", "STORE", "d1", "LIMIT", "0", "1", "STORE", "d2"});

    @Test
    void repliesMatchRedisServer() throws Exception {
        try (RespClient r = RespClient.connect(redis.port()); RespClient v = RespClient.connect(server.port())) {
            r.call("FLUSHALL");
            v.call("FLUSHALL");
            for (String[] setup : DATA) {
                assertEquals(r.call(setup), v.call(setup), String.join(" ", setup));
            }
            for (String[] probe : PROBES) {
                assertEquals(r.call(probe), v.call(probe), String.join(" ", probe));
            }
        }
    }

    @Test
    void watchSeesTheStoreDestination() {
        try (Lettuce watcher = connect(ProtocolVersion.RESP2); Lettuce other = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> w = watcher.sync();
            w.rpush("src", "2", "1");
            w.watch("dest");
            w.multi();
            w.get("x");
            assertEquals(2, other.sync().sortStore("src", SortArgs.Builder.desc(), "dest"));
            TransactionResult result = w.exec();
            assertTrue(result.wasDiscarded(), "SORT ... STORE wrote the watched key");
            assertEquals(List.of("2", "1"), w.lrange("dest", 0, -1));
            assertEquals(List.of("1", "2"), w.sortReadOnly("src"));
        }
    }
}
