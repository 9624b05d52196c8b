package io.varve.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The COMMAND family, served from the command table in Redis 7's shapes and with its error words. */
class CommandIntrospectionTest extends OneServerPerClass {

    private static RespClient.Err err(String text) {
        return new RespClient.Err(text);
    }

    @Test
    void infoDescribesFlagsKeysCategoriesAndKeySpecsInRespTwo() throws IOException {
        try (RespClient c = RespClient.connect(server.port())) {
            List<?> info = (List<?>) c.call("COMMAND", "INFO", "zunionstore", "nosuch", "object|encoding");
            List<?> zunionstore = (List<?>) info.get(0);
            assertEquals(List.of("zunionstore", -4L, List.of("write", "denyoom", "movablekeys"), 1L, 1L, 1L,
                    List.of("@write", "@sortedset", "@slow"), List.of()), zunionstore.subList(0, 8));
            List<?> keySpecs = (List<?>) zunionstore.get(8);
            assertEquals(2, keySpecs.size());
            assertEquals(List.of("flags", List.of("RW", "access", "update"),
                    "begin_search", List.of("type", "index", "spec", List.of("index", 2L)),
                    "find_keys", List.of("type", "keynum", "spec",
                            List.of("keynumidx", 0L, "firstkey", 1L, "keystep", 1L))), keySpecs.get(1));
            assertEquals(List.of(), zunionstore.get(9), "no subcommands");
            assertNull(info.get(1));
            List<?> encoding = (List<?>) info.get(2);
            assertEquals(List.of("object|encoding", 3L, List.of("readonly"), 2L, 2L, 1L), encoding.subList(0, 6));
        }
    }

    @Test
    void aContainerListsItsSubcommandsAndRespThreeGivesSetsAndMaps() throws IOException {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("HELLO", "3");
            List<?> object = (List<?>) ((List<?>) c.call("COMMAND", "INFO", "object")).getFirst();
            assertEquals(List.of("object", -2L, List.of(), 0L, 0L, 0L), object.subList(0, 6));
            List<?> subs = (List<?>) object.get(9);
            assertEquals(5, subs.size());
            List<?> spop = (List<?>) ((List<?>) c.call("COMMAND", "INFO", "spop")).getFirst();
            assertEquals(List.of("nondeterministic_output"), spop.get(7));
            Map<?, ?> keySpec = (Map<?, ?>) ((List<?>) spop.get(8)).getFirst();
            assertEquals(Map.of("type", "range", "spec", Map.of("lastkey", 0L, "keystep", 1L, "limit", 0L)),
                    keySpec.get("find_keys"));
            Map<?, ?> docs = (Map<?, ?>) c.call("COMMAND", "DOCS", "get", "object");
            assertEquals(Map.of("group", "string"), docs.get("get"));
            assertEquals("generic", ((Map<?, ?>) docs.get("object")).get("group"));
            assertTrue(((Map<?, ?>) ((Map<?, ?>) docs.get("object")).get("subcommands")).containsKey("object|help"));
        }
    }

    @Test
    void getKeysFindsKeysAsTheKeySpecsSay() throws IOException {
        try (RespClient c = RespClient.connect(server.port())) {
            assertEquals(List.of("d", "a", "b"), c.call("COMMAND", "GETKEYS", "zunionstore", "d", "2", "a", "b"));
            assertEquals(List.of("a", "b"), c.call("COMMAND", "GETKEYS", "blmpop", "0", "2", "a", "b", "LEFT"));
            assertEquals(List.of("a", "c"), c.call("COMMAND", "GETKEYS", "MSET", "a", "1", "c", "2"));
            assertEquals(List.of("k"), c.call("COMMAND", "GETKEYS", "OBJECT", "ENCODING", "k"));
            assertEquals(List.of(List.of("k", List.of("RO", "access"))),
                    c.call("COMMAND", "GETKEYSANDFLAGS", "get", "k"));
        }
    }

    @Test
    void getKeysAnswersRedisErrors() throws IOException {
        try (RespClient c = RespClient.connect(server.port())) {
            assertEquals(err("ERR Invalid command specified"), c.call("COMMAND", "GETKEYS", "nosuch", "k"));
            assertEquals(err("ERR Invalid command specified"), c.call("COMMAND", "GETKEYS", "object", "nosuch", "k"));
            assertEquals(err("ERR The command has no key arguments"), c.call("COMMAND", "GETKEYS", "ping", "x"));
            assertEquals(err("ERR Invalid number of arguments specified for command"),
                    c.call("COMMAND", "GETKEYS", "get", "a", "b"));
            assertEquals(err("ERR Invalid arguments specified for command"),
                    c.call("COMMAND", "GETKEYS", "zunionstore", "d", "5", "a", "b"));
            assertEquals(err("ERR Invalid arguments specified for command"),
                    c.call("COMMAND", "GETKEYS", "lmpop", "0", "a", "LEFT"));
            assertEquals(err("ERR wrong number of arguments for 'command|getkeys' command"),
                    c.call("COMMAND", "GETKEYS", "get"));
            assertEquals(err("ERR wrong number of arguments for 'command|count' command"),
                    c.call("COMMAND", "COUNT", "x"));
            assertEquals(err("ERR unknown subcommand 'NOSUCH'. Try COMMAND HELP."), c.call("COMMAND", "NOSUCH"));
        }
    }

    @Test
    void countAndListAgree() throws IOException {
        try (RespClient c = RespClient.connect(server.port())) {
            long count = (Long) c.call("COMMAND", "COUNT");
            List<?> all = (List<?>) c.call("COMMAND");
            assertEquals(count, all.size());
            List<?> names = (List<?>) c.call("COMMAND", "LIST");
            assertTrue(names.contains("get") && names.contains("object|help"), names.toString());
            assertEquals(count, names.stream().filter(n -> !((String) n).contains("|")).count());
            List<?> objects = (List<?>) c.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "object*");
            assertEquals(List.of("object", "object|encoding", "object|freq", "object|idletime", "object|refcount",
                    "object|help"), objects);
            List<?> hashes = (List<?>) c.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "hash");
            assertTrue(hashes.contains("hset") && !hashes.contains("get"), hashes.toString());
            assertEquals(List.of(), c.call("COMMAND", "LIST", "FILTERBY", "MODULE", "x"));
            assertEquals(err("ERR syntax error"), c.call("COMMAND", "LIST", "x"));
            assertEquals(err("ERR syntax error"), c.call("COMMAND", "LIST", "FILTERBY", "NAME", "x"));
        }
    }

    @Test
    void theScriptingHyperLogLogAndGeoCategoriesHoldTheirCommands() throws IOException {
        try (RespClient c = RespClient.connect(server.port())) {
            List<?> scripting = (List<?>) c.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "scripting");
            assertTrue(scripting.contains("eval") && scripting.contains("script|kill") && !scripting.contains("set"),
                    scripting.toString());
            List<?> hll = (List<?>) c.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "hyperloglog");
            assertTrue(hll.contains("pfadd"), hll.toString());
            List<?> geo = (List<?>) c.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "geo");
            assertTrue(geo.contains("geoadd"), geo.toString());
        }
    }

    @Test
    void sortRoIsMarkedWithMovableKeys() throws IOException {
        try (RespClient c = RespClient.connect(server.port())) {
            List<?> info = (List<?>) ((List<?>) c.call("COMMAND", "INFO", "sort_ro")).get(0);
            assertTrue(((List<?>) info.get(2)).contains("movablekeys"), info.toString());
        }
    }
}
