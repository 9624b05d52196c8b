package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CONFIG GET/SET over every parameter redis-server 7 knows, with Redis's refusals, and CONFIG REWRITE. */
class RedisParametersTest {

    @TempDir
    Path dir;

    private static Map<String, String> pairs(Object reply) {
        List<?> list = (List<?>) reply;
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < list.size(); i += 2) {
            out.put((String) list.get(i), (String) list.get(i + 1));
        }
        return out;
    }

    @Test
    void acceptsAndReportsBackRedisParameters() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("CONFIG", "SET", "save", ""));
            assertEquals("OK", c.call("CONFIG", "SET", "list-compress-depth", "2", "maxmemory-policy", "allkeys-lru"));
            assertEquals(Map.of("list-compress-depth", "2"), pairs(c.call("CONFIG", "GET", "list-compress-depth")));
            assertEquals(Map.of("maxmemory-policy", "allkeys-lru"), pairs(c.call("CONFIG", "GET", "maxmemory-policy")));

            Map<String, String> all = pairs(c.call("CONFIG", "GET", "*"));
            for (String name : List.of("notify-keyspace-events", "hash-max-listpack-entries", "set-max-intset-entries",
                    "lua-time-limit", "busy-reply-threshold", "latency-monitor-threshold", "appendonly")) {
                assertTrue(all.containsKey(name), name);
            }
        }
    }

    @Test
    void olderAndNewerNamesShareOneValue() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("CONFIG", "SET", "hash-max-ziplist-entries", "7"));
            assertEquals(Map.of("hash-max-listpack-entries", "7", "hash-max-ziplist-entries", "7"),
                    pairs(c.call("CONFIG", "GET", "hash-max-*-entries")));
            assertEquals("OK", c.call("CONFIG", "SET", "replica-read-only", "no"));
            assertEquals(Map.of("slave-read-only", "no"), pairs(c.call("CONFIG", "GET", "slave-read-only")));
        }
    }

    @Test
    void refusesValuesAsRedisDoes() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'activerehashing')"
                    + " - argument must be 'yes' or 'no'"), c.call("CONFIG", "SET", "activerehashing", "maybe"));
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument "
                    + "couldn't be parsed into an integer"), c.call("CONFIG", "SET", "hz", "often"));
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - "
                    + "argument must be a memory value"), c.call("CONFIG", "SET", "maxmemory", "lots"));
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'loglevel') - "
                    + "argument(s) must be one of the following: debug, verbose, notice, warning"),
                    c.call("CONFIG", "SET", "loglevel", "loud"));
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'daemonize') - "
                    + "can't set immutable config"), c.call("CONFIG", "SET", "daemonize", "yes"));
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'dbfilename') - "
                    + "can't set protected config"), c.call("CONFIG", "SET", "dbfilename", "x.rdb"));
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument "
                    + "couldn't be parsed into an integer"), c.call("CONFIG", "SET", "maxmemory", "1mb", "hz", "x"));
            assertEquals(Map.of("maxmemory", "0"), pairs(c.call("CONFIG", "GET", "maxmemory")), "none of it applied");
        }
    }

    @Test
    void rewriteWithoutAFileIsRefused() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals(new RespClient.Err("ERR The server is running without a config file"),
                    c.call("CONFIG", "REWRITE"));
        }
    }

    @Test
    void rewriteKeepsTheOperatorsLinesAndAddsChangedParameters() throws Exception {
        Path file = dir.resolve("varve.conf");
        Files.writeString(file, "# my settings\nmaxclients 100\nhz 10\n");
        Path data = dir.resolve("data");
        try (TestServer server = TestServer.start(data, ignored -> fromArgs(file.toString(), "--port", "0",
                "--dir", data.toString(), "--io-threads", "1"));
             RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("CONFIG", "SET", "maxclients", "50", "notify-keyspace-events", "KEA",
                    "save", ""));
            assertEquals("OK", c.call("CONFIG", "REWRITE"));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(List.of("# my settings", "maxclients 50", "hz 10"), lines.subList(0, 3));
        // Redis reports (and rewrites) the classes in its own order: KEA reads back as AKE.
        assertTrue(lines.contains("notify-keyspace-events AKE"), lines.toString());
        ServerConfig reread = ServerConfig.fromArgs(new String[] {file.toString()});
        assertEquals("50", reread.get("maxclients"));
        assertEquals("AKE", reread.get("notify-keyspace-events"));
        assertEquals(data.toString(), reread.get("dir"), "the command line's --dir, running, is written too");
    }

    private static ServerConfig fromArgs(String... args) {
        try {
            return ServerConfig.fromArgs(args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
