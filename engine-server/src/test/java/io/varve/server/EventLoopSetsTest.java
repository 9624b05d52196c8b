package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lone SETs from many connections, committed together per event loop (EventLoopSets): each connection still
 * sees its own commands in order, also when its next command arrives before the shared run is committed.
 * INFO's {@code total_sets_committed_per_event_loop} tells that the shared path ran, and
 * {@code total_set_runs_committed_on_event_loop} / {@code total_set_runs_handed_off} where each run committed.
 */
class EventLoopSetsTest extends OneServerPerClass {

    private static final int CLIENTS = 16;
    private static final int ROUNDS = 200;

    private long sharedSets(RespClient c) throws IOException {
        return c.infoStat("total_sets_committed_per_event_loop");
    }

    /**
     * The shared run's commit is held back until the connection's next commands have certainly reached the
     * server (its input byte count says so). Those commands must still run after the SET: the connection's
     * drainer may not start while the shared SET is pending.
     */
    @Test
    void aConnectionsNextCommandsWaitForItsSharedSet(@TempDir Path dir) throws Exception {
        LinkedBlockingQueue<Runnable> held = new LinkedBlockingQueue<>();
        try (TestServer own = TestServer.start(dir, c -> c, java.net.InetAddress::isLoopbackAddress,
                new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis()),
                b -> b.loopSetCommitter(held::add).commitSharedSetsOnLoop(false));
             RespClient observer = RespClient.connect(own.port())) {
            for (int round = 0; round < 20; round++) {
                // A fresh connection each round: only an idle one (no drainer) may share its SET.
                RespClient c = RespClient.connect(own.port());
                String key = "held:" + round;
                c.send("SET", key, "v");
                Runnable commit = held.take(); // the SET went into a shared run, whose commit waits here
                long inputBefore = observer.infoStat("total_net_input_bytes");
                byte[] append = RespClient.encode("APPEND", key, "+");
                byte[] get = RespClient.encode("GET", key);
                c.sendRaw(append);
                c.sendRaw(get);
                // Wait until the server has read both of c's commands. Each INFO counts its own request too.
                long expected = inputBefore + append.length + get.length;
                long infoRequest = RespClient.encode("INFO", "stats").length;
                for (int polls = 1; observer.infoStat("total_net_input_bytes") - polls * infoRequest < expected;
                     polls++) {
                    Thread.onSpinWait();
                }
                commit.run();
                assertEquals("OK", c.read(), "SET, round " + round);
                assertEquals(2L, c.read(), "APPEND ran after the SET, round " + round);
                assertEquals("v+", c.read(), "GET, round " + round);
                c.close();
            }
        }
    }

    /**
     * A run is committed on the event loop only if that cannot wait: while a command elsewhere holds the key's
     * stripe lock, the run goes to the committer (which would wait for the lock) instead. With the lock free,
     * the next run is committed on the loop and never reaches the committer.
     */
    @Test
    void aSetWhoseKeyIsLockedIsHandedOffAndTheNextOneIsNot(@TempDir Path dir) throws Exception {
        LinkedBlockingQueue<Runnable> handedOff = new LinkedBlockingQueue<>();
        try (TestServer own = TestServer.start(dir, c -> c, java.net.InetAddress::isLoopbackAddress,
                new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis()),
                b -> b.loopSetCommitter(handedOff::add));
             RespClient observer = RespClient.connect(own.port())) {
            byte[] key = "locked".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            // Fresh connections: only a connection with nothing in flight shares its lone SET.
            try (RespClient c = RespClient.connect(own.port())) {
                Runnable commit;
                try (var held = own.server.keyspace().lock(key)) {
                    c.send("SET", "locked", "v1");
                    // Arrives only if the loop did not commit the run itself.
                    commit = handedOff.poll(60, TimeUnit.SECONDS);
                    assertNotNull(commit, "the run was not handed off while its key's lock was held");
                }
                commit.run();
                assertEquals("OK", c.read());
            }
            assertEquals("v1", observer.call("GET", "locked"));
            assertEquals(1L, observer.infoStat("total_set_runs_handed_off"));

            long onLoop = observer.infoStat("total_set_runs_committed_on_event_loop");
            try (RespClient c = RespClient.connect(own.port())) {
                assertEquals("OK", c.call("SET", "locked", "v2"));
            }
            assertEquals("v2", observer.call("GET", "locked"));
            assertEquals(onLoop + 1, observer.infoStat("total_set_runs_committed_on_event_loop"));
            assertEquals(1L, observer.infoStat("total_set_runs_handed_off"));
            assertTrue(handedOff.isEmpty(), "the second run was committed on the loop");
        }
    }

    /** With appendfsync always every commit waits for an fsync, so no run is committed on the event loop. */
    @Test
    void withAppendfsyncAlwaysEveryRunIsHandedOff(@TempDir Path dir) throws Exception {
        try (TestServer own = TestServer.start(dir, c -> c.with("appendfsync", "always"));
             RespClient c = RespClient.connect(own.port())) {
            for (int i = 0; i < 20; i++) {
                assertEquals("OK", c.call("SET", "k" + i, "v" + i));
            }
            for (int i = 0; i < 20; i++) {
                assertEquals("v" + i, c.call("GET", "k" + i));
            }
            assertEquals(0L, c.infoStat("total_set_runs_committed_on_event_loop"));
            assertEquals(20L, c.infoStat("total_set_runs_handed_off"));
        }
    }

    @Test
    void commandsSentRightBehindALoneSetSeeIt() throws Exception {
        List<RespClient> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(RespClient.connect(server.port()));
            }
            long before = sharedSets(clients.getFirst());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                RespClient c = clients.get(i);
                String key = "lone:" + i;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int n = 0; n < ROUNDS; n++) {
                        // Separate writes: the SET can arrive alone (shared run) and the rest in later reads.
                        c.send("SET", key, "v" + n);
                        c.send("APPEND", key, "+");
                        c.send("GET", key);
                        c.send("SET", key, "w" + n, "NX");
                        assertEquals("OK", c.read(), "SET, round " + n);
                        assertEquals((long) ("v" + n + "+").length(), c.read(), "APPEND, round " + n);
                        assertEquals("v" + n + "+", c.read(), "GET, round " + n);
                        assertEquals(null, c.read(), "SET NX, round " + n);
                    }
                    // And a lone SET whose reply is awaited: the next command is a read of its own.
                    assertEquals("OK", c.call("SET", key, "last"));
                    assertEquals("last", c.call("GET", key));
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertTrue(sharedSets(clients.getFirst()) > before, "no SET took the shared path");
            assertTrue(clients.getFirst().infoStat("total_set_runs_committed_on_event_loop") > 0,
                    "no run was committed on the event loop");
        } finally {
            pool.shutdownNow();
            for (RespClient c : clients) {
                c.close();
            }
        }
    }

    @Test
    void lastSharedSetOfAKeyWinsAndEveryReplyIsOk() throws Exception {
        List<RespClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(RespClient.connect(server.port()));
            }
            for (int round = 0; round < 50; round++) {
                for (int i = 0; i < CLIENTS; i++) {
                    clients.get(i).send("SET", "shared", "c" + i + ":" + round);
                }
                for (RespClient c : clients) {
                    assertEquals("OK", c.read());
                }
                // Every SET of the round was acknowledged, so the value is one of this round's.
                String value = (String) clients.getFirst().call("GET", "shared");
                assertTrue(value.endsWith(":" + round), value);
            }
        } finally {
            for (RespClient c : clients) {
                c.close();
            }
        }
    }
}
