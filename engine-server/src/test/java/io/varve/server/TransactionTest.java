package io.varve.server;

import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MULTI, EXEC, DISCARD, WATCH, UNWATCH: exact replies, atomicity against other clients, optimistic locking. */
class TransactionTest {

    private static final RespClient.Err ABORT =
            new RespClient.Err("EXECABORT Transaction discarded because of previous errors.");

    @TempDir
    Path dir;

    @Test
    void queuedCommandsRunAtExecAndErrorsBeforeExecAbort() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("MULTI"));
            assertEquals("QUEUED", c.call("SET", "k", "v"));
            assertEquals("QUEUED", c.call("GET", "k"));
            assertEquals(List.of("OK", "v"), c.call("EXEC"));

            assertEquals("OK", c.call("MULTI"));
            assertEquals("QUEUED", c.call("SET", "k", "changed"));
            assertEquals(new RespClient.Err("ERR unknown command 'NOSUCH', with args beginning with: "), c.call("NOSUCH"));
            assertEquals(ABORT, c.call("EXEC"));
            assertEquals("v", c.call("GET", "k"), "nothing of an aborted transaction ran");

            assertEquals("OK", c.call("MULTI"));
            assertEquals("QUEUED", c.call("SET", "k", "changed"));
            assertEquals(new RespClient.Err("ERR wrong number of arguments for 'get' command"), c.call("GET"));
            assertEquals(ABORT, c.call("EXEC"));
            assertEquals("v", c.call("GET", "k"));
        }
    }

    @Test
    void aBlockingPopInsideExecAnswersAtOnceAndOtherClientsKeepGoing() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port());
             RespClient other = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("MULTI"));
            assertEquals("QUEUED", c.call("BLPOP", "empty", "0"));
            assertEquals("QUEUED", c.call("RPUSH", "full", "x"));
            assertEquals("QUEUED", c.call("BLPOP", "full", "0"));
            List<Object> replies = new ArrayList<>();
            replies.add(null);
            replies.add(1L);
            replies.add(List.of("full", "x"));
            assertEquals(replies, c.call("EXEC"));
            assertEquals("OK", other.call("SET", "after", "1"), "the server is not held by a parked EXEC");
        }
    }

    @Test
    void runtimeErrorInsideExecDoesNotRollBackTheOthers() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals("OK", c.call("SET", "s", "text"));
            assertEquals("OK", c.call("MULTI"));
            assertEquals("QUEUED", c.call("SET", "a", "1"));
            assertEquals("QUEUED", c.call("INCR", "s"));
            assertEquals("QUEUED", c.call("SET", "b", "2"));
            assertEquals(List.of("OK", new RespClient.Err("ERR value is not an integer or out of range"), "OK"),
                    c.call("EXEC"));
            assertEquals("1", c.call("GET", "a"));
            assertEquals("2", c.call("GET", "b"));
        }
    }

    @Test
    void misuseGetsRedisErrors() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals(new RespClient.Err("ERR EXEC without MULTI"), c.call("EXEC"));
            assertEquals(new RespClient.Err("ERR DISCARD without MULTI"), c.call("DISCARD"));
            assertEquals("OK", c.call("MULTI"));
            assertEquals(new RespClient.Err("ERR MULTI calls can not be nested"), c.call("MULTI"));
            assertEquals(new RespClient.Err("ERR WATCH inside MULTI is not allowed"), c.call("WATCH", "k"));
            assertEquals("QUEUED", c.call("SET", "k", "1"));
            assertEquals("OK", c.call("DISCARD"));
            assertNull(c.call("GET", "k"), "a discarded transaction never runs");
            assertEquals(new RespClient.Err("ERR EXEC without MULTI"), c.call("EXEC"));
        }
    }

    @Test
    void watchedKeyWrittenByAnotherClientAbortsExec() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient a = RespClient.connect(server.port());
             RespClient b = RespClient.connect(server.port())) {
            assertEquals("OK", a.call("WATCH", "k"));
            assertEquals("OK", b.call("SET", "k", "theirs"));
            assertEquals("OK", a.call("MULTI"));
            assertEquals("QUEUED", a.call("SET", "k", "mine"));
            assertNull(a.call("EXEC"));
            assertEquals("theirs", a.call("GET", "k"));

            assertEquals("OK", a.call("WATCH", "k"));
            assertEquals("OK", b.call("SET", "other", "x"), "a write to another key");
            assertEquals("OK", a.call("MULTI"));
            assertEquals("QUEUED", a.call("SET", "k", "mine"));
            assertEquals(List.of("OK"), a.call("EXEC"));

            assertEquals("OK", a.call("WATCH", "k"));
            assertEquals("OK", a.call("UNWATCH"));
            assertEquals("OK", b.call("SET", "k", "after unwatch"));
            assertEquals("OK", a.call("MULTI"));
            assertEquals("QUEUED", a.call("GET", "k"));
            assertEquals(List.of("after unwatch"), a.call("EXEC"));
        }
    }

    @Test
    void flushesAndExpiryCountAsModifications() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient a = RespClient.connect(server.port());
             RespClient b = RespClient.connect(server.port())) {
            for (String flush : List.of("FLUSHDB", "FLUSHALL")) {
                assertEquals("OK", b.call("SET", "k", "v"));
                assertEquals("OK", a.call("WATCH", "k"));
                assertEquals("OK", b.call(flush));
                assertEquals("OK", a.call("MULTI"));
                assertEquals("QUEUED", a.call("GET", "k"));
                assertNull(a.call("EXEC"), flush);
            }
            assertEquals("OK", b.call("SET", "k", "v", "PX", "1000"));
            assertEquals("OK", a.call("WATCH", "k"));
            server.advance(Duration.ofSeconds(2));
            assertEquals("OK", a.call("MULTI"));
            assertEquals("QUEUED", a.call("GET", "k"));
            assertNull(a.call("EXEC"), "the watched key expired");
        }
    }

    @Test
    void abortedExecIsNullInResp3() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient a = RespClient.connect(server.port());
             RespClient b = RespClient.connect(server.port())) {
            a.call("HELLO", "3");
            assertEquals("OK", a.call("WATCH", "k"));
            assertEquals("OK", b.call("SET", "k", "v"));
            assertEquals("OK", a.call("MULTI"));
            assertEquals("QUEUED", a.call("GET", "k"));
            assertEquals(RespClient.NULL, a.call("EXEC"));
        }
    }

    /** Optimistic increments from several connections: WATCH/GET/MULTI/SET/EXEC retried until EXEC succeeds. */
    @Test
    void watchMakesConcurrentIncrementsExact() throws Exception {
        int clients = 4;
        int increments = 50;
        try (TestServer server = TestServer.start(dir);
             ExecutorService pool = Executors.newFixedThreadPool(clients)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> retries = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                retries.add(pool.submit(() -> {
                    int aborted = 0;
                    try (RespClient c = RespClient.connect(server.port())) {
                        start.await();
                        for (int n = 0; n < increments; ) {
                            assertEquals("OK", c.call("WATCH", "counter"));
                            Object current = c.call("GET", "counter");
                            long value = current == null ? 0 : Long.parseLong((String) current);
                            assertEquals("OK", c.call("MULTI"));
                            assertEquals("QUEUED", c.call("SET", "counter", Long.toString(value + 1)));
                            Object result = c.call("EXEC");
                            if (result == null) {
                                aborted++;
                            } else {
                                assertEquals(List.of("OK"), result, "an EXEC that ran must have set the counter");
                                n++;
                            }
                        }
                    }
                    return aborted;
                }));
            }
            start.countDown();
            for (Future<Integer> f : retries) {
                f.get(60, TimeUnit.SECONDS);
            }
            try (RespClient c = RespClient.connect(server.port())) {
                assertEquals(Integer.toString(clients * increments), c.call("GET", "counter"));
            }
        }
    }

    /** No reader sees half of an EXEC: two keys set together are always read equal. */
    @Test
    void execIsAtomicToOtherClients() throws Exception {
        try (TestServer server = TestServer.start(dir);
             ExecutorService pool = Executors.newSingleThreadExecutor();
             RespClient writer = RespClient.connect(server.port());
             RespClient reader = RespClient.connect(server.port())) {
            writer.call("MSET", "x", "0", "y", "0");
            AtomicBoolean done = new AtomicBoolean();
            CountDownLatch readerStarted = new CountDownLatch(1);
            Future<Boolean> sawTorn = pool.submit(() -> {
                boolean torn = false;
                readerStarted.countDown();
                while (!done.get()) {
                    List<?> xy = (List<?>) reader.call("MGET", "x", "y");
                    torn |= !xy.get(0).equals(xy.get(1));
                }
                return torn;
            });
            readerStarted.await();
            for (int i = 1; i <= 300; i++) {
                writer.call("MULTI");
                writer.call("SET", "x", Integer.toString(i));
                writer.call("INCR", "unrelated");
                writer.call("SET", "y", Integer.toString(i));
                assertEquals(3, ((List<?>) writer.call("EXEC")).size());
            }
            done.set(true);
            assertFalse(sawTorn.get(60, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void lettuceTransactions(ProtocolVersion p) throws Exception {
        try (TestServer server = TestServer.start(dir); Lettuce l = Lettuce.connect(server.port(), p);
             Lettuce other = Lettuce.connect(server.port(), p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals("OK", r.multi());
            r.set("a", "1");
            r.incr("a");
            r.get("a");
            TransactionResult result = r.exec();
            assertFalse(result.wasDiscarded());
            assertEquals(List.of("OK", 2L, "2"), result.stream().toList());

            assertEquals("OK", r.watch("a"));
            other.sync().set("a", "10");
            r.multi();
            r.incr("a");
            assertTrue(r.exec().wasDiscarded());
            assertEquals("10", r.get("a"));

            r.multi();
            r.set("a", "x");
            assertEquals("OK", r.discard());
            assertEquals("10", r.get("a"));
        }
    }
}
