package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A SET enters three ways — alone in a socket read (the event loop's shared run), pipelined (the
 * connection's run of SETs) and through the dispatcher (any SET with options) — and a GET two (answered from
 * memory on the event loop, or by the dispatcher). Each way refuses a request the connection may not run
 * with the same answer.
 */
class AdmissionTest {

    @TempDir
    Path dir;

    private static final RespClient.Err NOAUTH = new RespClient.Err("NOAUTH Authentication required.");

    @Test
    void anUnauthenticatedConnectionIsRefusedTheSameWayByEveryEntry() throws IOException {
        try (TestServer server = TestServer.start(dir, c -> c.with("requirepass", "pw"));
             RespClient c = RespClient.connect(server.port())) {
            assertEquals(List.of(NOAUTH, NOAUTH, NOAUTH, NOAUTH, NOAUTH, NOAUTH), everyEntry(c));
            assertEquals("OK", c.call("AUTH", "pw"));
            assertNull(c.call("GET", "a"), "nothing was written");
            assertNull(c.call("GET", "c"));
        }
    }

    @Test
    void aSubscribedConnectionIsRefusedTheSameWayByEveryEntry() throws IOException {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            assertEquals(List.of("subscribe", "ch", 1L), c.call("SUBSCRIBE", "ch"));
            RespClient.Err set = new RespClient.Err("ERR Can't execute 'set': only (P|S)SUBSCRIBE / "
                    + "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
            RespClient.Err get = new RespClient.Err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / "
                    + "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
            assertEquals(List.of(set, set, set, set, get, get), everyEntry(c));
            assertNull(other.call("GET", "a"), "nothing was written");
            assertNull(other.call("GET", "c"));
        }
    }

    @Test
    void insideMultiEveryEntryQueues() throws IOException {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("MULTI"));
            assertEquals(List.of("QUEUED", "QUEUED", "QUEUED", "QUEUED", "QUEUED", "QUEUED"), everyEntry(c));
            List<?> results = (List<?>) c.call("EXEC");
            assertEquals(6, results.size());
            assertEquals("1", c.call("GET", "a"));
        }
    }

    /**
     * Sends a lone SET (its own read), two pipelined SETs, a SET with an option (the dispatcher's), a lone GET and
     * a GET after a PING in one read; returns the six answers to the SETs and GETs.
     */
    private static List<Object> everyEntry(RespClient c) throws IOException {
        List<Object> answers = new ArrayList<>();
        c.send("SET", "a", "1");
        answers.add(c.read());
        ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
        pipeline.writeBytes(RespClient.encode("SET", "b", "2"));
        pipeline.writeBytes(RespClient.encode("SET", "c", "3"));
        c.sendRaw(pipeline.toByteArray());
        answers.add(c.read());
        answers.add(c.read());
        c.send("SET", "d", "4", "NX");
        answers.add(c.read());
        c.send("GET", "a");
        answers.add(c.read());
        c.send("GET", "b");
        answers.add(c.read());
        return answers;
    }
}
