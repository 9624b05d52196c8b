package io.varve.server;

import io.lettuce.core.SetArgs;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Read-modify-write commands from many connections at once lose no update and never both win a race, as
 * they would not against single-threaded Redis.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrencyTest {

    private static final int CLIENTS = 8;

    TestServer server;
    final List<Lettuce> clients = new ArrayList<>();
    ExecutorService pool;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        server = TestServer.start(dir);
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(Lettuce.connect(server.port(), i % 2 == 0 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2));
        }
        pool = Executors.newFixedThreadPool(CLIENTS);
    }

    @AfterAll
    void stop() {
        pool.shutdownNow();
        clients.forEach(Lettuce::close);
        server.close();
    }

    /** Runs {@code task(clientIndex)} on every client at once, released together; returns the results. */
    private <T> List<T> race(java.util.function.IntFunction<T> task) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            int index = i;
            futures.add(pool.submit((Callable<T>) () -> {
                go.await();
                return task.apply(index);
            }));
        }
        go.countDown();
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(60, TimeUnit.SECONDS));
        }
        return results;
    }

    @Test
    void incrementsAndAppendsAreNotLost() throws Exception {
        int perClient = 300;
        race(i -> {
            for (int n = 0; n < perClient; n++) {
                clients.get(i).sync().incr("counter");
                clients.get(i).sync().hincrby("hash", "field", 2);
                clients.get(i).sync().append("log", "x");
                clients.get(i).sync().incrbyfloat("float", 0.5);
            }
            return null;
        });
        var r = clients.getFirst().sync();
        assertEquals(Integer.toString(CLIENTS * perClient), r.get("counter"));
        assertEquals(Integer.toString(2 * CLIENTS * perClient), r.hget("hash", "field"));
        assertEquals(CLIENTS * perClient, r.strlen("log"));
        assertEquals(Integer.toString(CLIENTS * perClient / 2), r.get("float"));
    }

    @Test
    void exactlyOneClientWinsEachConditionalWrite() throws Exception {
        for (int round = 0; round < 20; round++) {
            String key = "nx" + round;
            List<String> nx = race(i -> clients.get(i).sync().set(key, "c" + i, SetArgs.Builder.nx()));
            assertEquals(1, nx.stream().filter("OK"::equals).count(), "SET NX winners in round " + round);

            String k2 = "msetnx" + round;
            List<Boolean> msetnx = race(i -> clients.get(i).sync().msetnx(Map.of(k2 + "a", "c" + i, k2 + "b", "c" + i)));
            assertEquals(1, msetnx.stream().filter(b -> b).count());
            var r = clients.getFirst().sync();
            assertEquals(r.get(k2 + "a"), r.get(k2 + "b"), "MSETNX writes both keys of one client");

            String k3 = "hsetnx" + round;
            List<Boolean> hsetnx = race(i -> clients.get(i).sync().hsetnx(k3, "f", "c" + i));
            assertEquals(1, hsetnx.stream().filter(b -> b).count());
        }
    }

    @Test
    void getSetHandsEachValueToExactlyOneClient() throws Exception {
        clients.getFirst().sync().set("token", "start");
        List<List<String>> seen = race(i -> {
            List<String> got = new ArrayList<>();
            for (int n = 0; n < 200; n++) {
                got.add(clients.get(i).sync().getset("token", i + ":" + n));
            }
            return got;
        });
        Set<String> all = new HashSet<>();
        int total = 0;
        for (List<String> s : seen) {
            all.addAll(s);
            total += s.size();
        }
        assertEquals(total, all.size(), "no value was read by two GETSETs");
    }

    @Test
    void renamesBetweenTwoKeysNeverLoseTheValue() throws Exception {
        var r = clients.getFirst().sync();
        r.set("ping", "ball");
        race(i -> {
            for (int n = 0; n < 100; n++) {
                try {
                    if (i % 2 == 0) {
                        clients.get(i).sync().rename("ping", "pong");
                    } else {
                        clients.get(i).sync().rename("pong", "ping");
                    }
                } catch (io.lettuce.core.RedisCommandExecutionException noSuchKey) {
                    // the ball was on the other side: fine
                }
            }
            return null;
        });
        assertEquals(1, r.exists("ping") + r.exists("pong"), "the value is in exactly one of the keys");
    }
}
