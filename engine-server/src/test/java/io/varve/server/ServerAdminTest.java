package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** INFO's added sections, CONFIG SET and RESETSTAT, SLOWLOG, CLIENT KILL, PAUSE, UNPAUSE and NO-EVICT. */
class ServerAdminTest {

    @TempDir
    Path dir;

    private static Map<String, String> fields(Object info) {
        Map<String, String> out = new HashMap<>();
        for (String line : ((String) info).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return out;
    }

    @Test
    void infoReportsCpuCommandAndErrorStatistics() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("SET", "k", "v");
            c.call("GET", "k");
            c.call("GET", "k");
            c.call("INCR", "k");
            c.call("GET");
            c.call("NOSUCH");
            Map<String, String> f = fields(c.call("INFO", "cpu", "commandstats", "errorstats"));
            assertTrue(Double.parseDouble(f.get("used_cpu_user")) >= 0, f.toString());
            assertTrue(f.containsKey("used_cpu_sys"), f.toString());
            assertTrue(f.get("cmdstat_get").startsWith("calls=2,usec="), f.toString());
            assertTrue(f.get("cmdstat_get").endsWith(",rejected_calls=1,failed_calls=0"), f.toString());
            assertTrue(f.get("cmdstat_incr").endsWith(",rejected_calls=0,failed_calls=1"), f.toString());
            assertEquals("count=3", f.get("errorstat_ERR"), "INCR's, GET's arity and the unknown command");
            assertTrue(fields(c.call("INFO", "all")).containsKey("cmdstat_set"));
            assertFalse(fields(c.call("INFO")).containsKey("cmdstat_set"), "the default sections leave it out");

            assertEquals("OK", c.call("CONFIG", "RESETSTAT"));
            Map<String, String> reset = fields(c.call("INFO", "commandstats", "errorstats", "stats"));
            assertFalse(reset.containsKey("cmdstat_get"), reset.toString());
            assertFalse(reset.containsKey("errorstat_ERR"), reset.toString());
            assertEquals("0", reset.get("keyspace_hits"));
        }
    }

    @Test
    void configSetChangesRunTimeParameters() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("CONFIG", "SET", "maxclients", "5", "slowlog-max-len", "3"));
            assertEquals(List.of("maxclients", "5"), c.call("CONFIG", "GET", "maxclients"));
            assertEquals("OK", c.call("CONFIG", "SET", "appendfsync", "always"));
            assertEquals("OK", c.call("SET", "k", "durable"));
            assertEquals("OK", c.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 64mb 16mb 30"));
            assertEquals(new RespClient.Err("ERR Unknown option or number of arguments for CONFIG SET - 'nonsense'"),
                    c.call("CONFIG", "SET", "nonsense", "1"));
            assertEquals(new RespClient.Err("ERR CONFIG SET failed (possibly related to argument 'port') - can't "
                    + "set immutable config"), c.call("CONFIG", "SET", "port", "1"));
            Object bad = c.call("CONFIG", "SET", "maxclients", "lots");
            assertTrue(bad instanceof RespClient.Err e && e.text().startsWith("ERR CONFIG SET failed (possibly "
                    + "related to argument 'maxclients')"), bad.toString());
            assertEquals(List.of("maxclients", "5"), c.call("CONFIG", "GET", "maxclients"), "nothing of it applied");

            assertEquals("OK", c.call("CONFIG", "SET", "requirepass", "pw"));
            try (RespClient late = RespClient.connect(server.port())) {
                assertEquals(new RespClient.Err("NOAUTH Authentication required."), late.call("GET", "k"));
                assertEquals("OK", late.call("AUTH", "pw"));
                assertEquals("durable", late.call("GET", "k"));
            }
            assertEquals("durable", c.call("GET", "k"), "connections authenticated before stay so");
        }
    }

    @Test
    void timeoutSetAtRunTimeClosesConnectionsAlreadyOpen() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient idle = RespClient.connect(server.port());
             RespClient admin = RespClient.connect(server.port())) {
            assertEquals("PONG", idle.call("PING"));
            assertEquals("OK", admin.call("CONFIG", "SET", "timeout", "1"));
            assertTrue(idle.closedByServer(), "bounded by the client's 10 s read timeout");
        }
    }

    @Test
    void maxclientsSetAtRunTimeRefusesTheOneTooMany() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("CONFIG", "SET", "maxclients", "1"));
            try (RespClient extra = RespClient.connect(server.port())) {
                assertEquals(new RespClient.Err("ERR max number of clients reached"), extra.read());
            }
        }
    }

    @Test
    void slowlogKeepsTheNewestCommandsCut() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("CLIENT", "SETNAME", "slowpoke");
            assertEquals("OK", c.call("CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "3"));
            c.call("SLOWLOG", "RESET"); // itself logged once it ran, like every command now
            c.call("APPEND", "k", "x".repeat(200));
            String[] many = new String[40];
            many[0] = "MGET";
            for (int i = 1; i < many.length; i++) {
                many[i] = "k" + i;
            }
            c.call(many);
            List<?> entries = (List<?>) c.call("SLOWLOG", "GET", "2");
            assertEquals(2, entries.size());
            List<?> newest = (List<?>) entries.getFirst();
            assertEquals(6, newest.size());
            List<?> args = (List<?>) newest.get(3);
            assertEquals(32, args.size());
            assertEquals("MGET", args.getFirst());
            assertEquals("... (9 more arguments)", args.get(31));
            assertEquals("slowpoke", newest.get(5));
            List<?> setArgs = (List<?>) ((List<?>) entries.get(1)).get(3);
            assertEquals("x".repeat(128) + "... (72 more bytes)", setArgs.get(2));
            assertEquals(3L, c.call("SLOWLOG", "LEN"), "slowlog-max-len");
            assertEquals("OK", c.call("SLOWLOG", "RESET"));
            assertEquals(1L, c.call("SLOWLOG", "LEN"), "only the LEN after the reset");
            assertEquals("OK", c.call("CONFIG", "SET", "slowlog-log-slower-than", "-1"));
            c.call("SLOWLOG", "RESET");
            c.call("PING");
            assertEquals(0L, c.call("SLOWLOG", "LEN"), "a negative threshold logs nothing");
        }
    }

    @Test
    void clientKillByIdAddressUserAndOldForm() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient admin = RespClient.connect(server.port())) {
            try (RespClient victim = RespClient.connect(server.port())) {
                long id = (Long) victim.call("CLIENT", "ID");
                assertEquals(1L, admin.call("CLIENT", "KILL", "ID", Long.toString(id)));
                assertTrue(victim.closedByServer());
            }
            try (RespClient victim = RespClient.connect(server.port())) {
                String addr = addressOf(admin, (Long) victim.call("CLIENT", "ID"));
                assertEquals(1L, admin.call("CLIENT", "KILL", "ADDR", addr));
                assertTrue(victim.closedByServer());
            }
            try (RespClient victim = RespClient.connect(server.port())) {
                String addr = addressOf(admin, (Long) victim.call("CLIENT", "ID"));
                assertEquals("OK", admin.call("CLIENT", "KILL", addr));
                assertTrue(victim.closedByServer());
                assertEquals(new RespClient.Err("ERR No such client"), admin.call("CLIENT", "KILL", addr));
            }
            try (RespClient victim = RespClient.connect(server.port())) {
                assertEquals("PONG", victim.call("PING"));
                assertEquals(1L, admin.call("CLIENT", "KILL", "USER", "default"), "everyone but the caller");
                assertTrue(victim.closedByServer());
                assertEquals(new RespClient.Err("ERR No such user 'nobody'"),
                        admin.call("CLIENT", "KILL", "USER", "nobody"));
            }
            assertEquals(1L, admin.call("CLIENT", "KILL", "USER", "default", "SKIPME", "no"), "the caller, after its reply");
            assertTrue(admin.closedByServer());
        }
    }

    private static String addressOf(RespClient admin, long id) throws Exception {
        String line = ((String) admin.call("CLIENT", "LIST", "ID", Long.toString(id))).strip();
        for (String field : line.split(" ")) {
            if (field.startsWith("addr=")) {
                return field.substring(5);
            }
        }
        throw new AssertionError(line);
    }

    @Test
    void clientPauseHoldsWritesUntilUnpause() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient admin = RespClient.connect(server.port());
             RespClient writer = RespClient.connect(server.port());
             RespClient reader = RespClient.connect(server.port())) {
            assertEquals("OK", admin.call("CLIENT", "PAUSE", "600000", "WRITE"));
            writer.send("SET", "k", "v");
            assertEquals(null, reader.call("GET", "k"), "reads run during a WRITE pause");
            assertEquals("PONG", reader.call("PING"));
            assertFalse(writer.replyWaiting(), "the write waits");
            assertEquals("OK", admin.call("CLIENT", "UNPAUSE"));
            assertEquals("OK", writer.read());
            assertEquals("v", reader.call("GET", "k"));
            assertEquals("OK", admin.call("CLIENT", "NO-EVICT", "on"));
            assertInstanceOf(RespClient.Err.class, admin.call("CLIENT", "PAUSE", "-1"));
        }
    }
}
