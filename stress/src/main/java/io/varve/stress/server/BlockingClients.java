package io.varve.stress.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Clients that block on lists in several databases beside a producer: BLPOPs and BLMOVEs with short
 * timeouts (so they time out, are served while parked, or find data at once), and clients that send a
 * BLMOVE without a timeout and disconnect while it waits. Every element names the database it was pushed
 * in. The oracle, once the attack is over: every pushed element is, exactly once, either with a consumer
 * that read it or in one of the lists (a BLMOVE's destination keeps what a disconnected client was served),
 * always in the database it was pushed in; no client ever waits past its timeout; and no blocked client is
 * left registered once they have all gone.
 */
final class BlockingClients {
    static final int DATABASES = 3;
    private static final int CONSUMERS = 4;
    private static final int TIMEOUT = 30_000;
    private static final List<String> QUEUES = List.of("blocking:q0", "blocking:q1");
    private static final String DONE = "blocking:done";
    private static final String LIMBO = "blocking:limbo";
    private static final List<String> TIMEOUTS = List.of("0.01", "0.05", "0.2");

    private final int port;
    private final Random random;
    private final BooleanSupplier over;
    private final ConcurrentLinkedQueue<String> pushed = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();
    private final AtomicReference<String> problem = new AtomicReference<>();
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong disconnected = new AtomicLong();
    /** Names this attack's elements apart from those a request still in flight from an earlier one moves. */
    private final String run;

    BlockingClients(int port, Random random, BooleanSupplier over) {
        this.port = port;
        this.random = random;
        this.over = over;
        this.run = Long.toHexString(random.nextLong());
    }

    /** Runs until {@code over}, then checks; throws with what went wrong. Returns a summary. */
    String run() throws Exception {
        List<Thread> threads = new ArrayList<>();
        long seed = random.nextLong();
        threads.add(Thread.ofPlatform().daemon().name("blocking-producer").start(() -> guard(this::produce, seed)));
        for (int i = 0; i < CONSUMERS; i++) {
            long s = random.nextLong();
            threads.add(Thread.ofPlatform().daemon().name("blocking-consumer-" + i).start(() -> guard(this::consume, s)));
        }
        for (Thread t : threads) {
            t.join(2L * TIMEOUT);
            if (t.isAlive()) {
                fail(t.getName() + " did not finish");
            }
        }
        if (problem.get() == null) {
            verify();
        }
        if (problem.get() != null) {
            throw new IllegalStateException("blocking clients: " + problem.get());
        }
        return String.format("%d pushed, %d served to readers, %d timeouts, %d disconnects while blocked",
                pushed.size(), served.get(), timedOut.get(), disconnected.get());
    }

    private interface Client {
        void run(Random random) throws IOException;
    }

    private void guard(Client client, long seed) {
        try {
            client.run(new Random(seed));
        } catch (IOException | RuntimeException e) {
            fail(Thread.currentThread().getName() + ": " + e);
        }
    }

    private void fail(String what) {
        problem.compareAndSet(null, what);
    }

    private static RespConnection open(int port) throws IOException {
        RespConnection c = new RespConnection(port, TIMEOUT);
        expect(c.call("AUTH", Attacks.PASSWORD), "+OK", "AUTH");
        return c;
    }

    private static void expect(String got, String wanted, String what) throws IOException {
        if (!wanted.equals(got)) {
            throw new IOException(what + " answered " + got + ", wanted " + wanted);
        }
    }

    private void produce(Random random) throws IOException {
        try (RespConnection c = open(port)) {
            for (long n = 0; !over.getAsBoolean() && problem.get() == null; n++) {
                int database = random.nextInt(DATABASES);
                expect(c.call("SELECT", String.valueOf(database)), "+OK", "SELECT");
                String element = "d" + database + "-" + run + "-e" + n;
                String reply = c.call("RPUSH", QUEUES.get(random.nextInt(QUEUES.size())), element);
                if (!reply.startsWith(":")) {
                    throw new IOException("RPUSH answered " + reply);
                }
                pushed.add(element);
                if (random.nextInt(4) == 0) {
                    // Let the consumers run dry now and then, so that they park and are served while parked.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(5)));
                }
            }
        }
    }

    private void consume(Random random) throws IOException {
        RespConnection c = open(port);
        try {
            while (!over.getAsBoolean() && problem.get() == null) {
                int database = random.nextInt(DATABASES);
                expect(c.call("SELECT", String.valueOf(database)), "+OK", "SELECT");
                String prefix = "d" + database + "-";
                String queue = QUEUES.get(random.nextInt(QUEUES.size()));
                String timeout = TIMEOUTS.get(random.nextInt(TIMEOUTS.size()));
                int choice = random.nextInt(10);
                if (choice < 5) {
                    String header = c.call("BLPOP", QUEUES.get(0), QUEUES.get(1), timeout);
                    if (header.equals("*-1")) {
                        timedOut.incrementAndGet();
                    } else if (header.equals("*2")) {
                        c.reply(); // the key
                        take(c.reply(), prefix, true);
                    } else {
                        throw new IOException("BLPOP answered " + header);
                    }
                } else if (choice < 8) {
                    String element = c.call("BLMOVE", queue, DONE, "LEFT", "RIGHT", timeout);
                    if (element == null) {
                        timedOut.incrementAndGet();
                    } else {
                        take(element, prefix, false); // it stays in DONE, where the oracle counts it
                    }
                } else {
                    // Blocks without a timeout and goes away: whatever it is served lands in LIMBO.
                    c.send(RespConnection.command("BLMOVE", queue, LIMBO, "LEFT", "RIGHT", "0"));
                    c.close();
                    disconnected.incrementAndGet();
                    c = open(port);
                }
            }
        } finally {
            c.close();
        }
    }

    private void take(String element, String prefix, boolean kept) throws IOException {
        if (element == null || element.startsWith("-")) {
            throw new IOException("a served pop answered " + element);
        }
        if (!element.startsWith(prefix)) {
            fail("a client in database " + prefix + " was served " + element + " of another database");
        }
        if (kept) {
            received.add(element);
        }
        served.incrementAndGet();
    }

    /** The oracle; see the class comment. Deletes the attack's keys afterwards. */
    private void verify() throws IOException {
        try (RespConnection c = open(port)) {
            awaitNoBlockedClients(c);
            Map<String, Integer> seen = new HashMap<>();
            for (String e : received) {
                seen.merge(e, 1, Integer::sum);
            }
            List<String> keys = new ArrayList<>(QUEUES);
            keys.add(DONE);
            keys.add(LIMBO);
            for (int database = 0; database < DATABASES; database++) {
                expect(c.call("SELECT", String.valueOf(database)), "+OK", "SELECT");
                // All lists of the database at once: a request still in flight from a client that went away
                // may move an element between two of them.
                for (String e : rangesAtOnce(c, keys)) {
                    if (!e.contains("-" + run + "-")) {
                        continue; // an earlier attack's, moved by a request that was still in flight
                    }
                    if (!e.startsWith("d" + database + "-")) {
                        fail(e + " is in database " + database + ", not the one it was pushed in");
                    }
                    seen.merge(e, 1, Integer::sum);
                }
                List<String> delete = new ArrayList<>(keys);
                delete.addFirst("DEL");
                c.call(delete.toArray(new String[0]));
            }
            for (String e : pushed) {
                Integer n = seen.remove(e);
                if (n == null) {
                    fail(e + " was lost: no client read it and no list holds it");
                } else if (n > 1) {
                    fail(e + " was delivered " + n + " times");
                }
            }
            if (!seen.isEmpty()) {
                fail("elements nobody pushed: " + seen.keySet());
            }
        }
    }

    /** Disconnected clients leave the registry on the event loop, shortly after their close. */
    private void awaitNoBlockedClients(RespConnection c) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT);
        while (true) {
            String info = c.call("INFO", "clients");
            if (info.contains("blocked_clients:0\r\n") || info.contains("blocked_clients:0\n")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("clients still registered as blocked after all of them went away: " + info);
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** Every element of the lists {@code keys}, read in one MULTI/EXEC. */
    private static List<String> rangesAtOnce(RespConnection c, List<String> keys) throws IOException {
        expect(c.call("MULTI"), "+OK", "MULTI");
        for (String key : keys) {
            expect(c.call("LRANGE", key, "0", "-1"), "+QUEUED", "LRANGE inside MULTI");
        }
        expect(c.call("EXEC"), "*" + keys.size(), "EXEC");
        List<String> elements = new ArrayList<>();
        for (int k = 0; k < keys.size(); k++) {
            String header = c.reply();
            if (!header.startsWith("*")) {
                throw new IOException("LRANGE answered " + header);
            }
            int n = Integer.parseInt(header.substring(1));
            for (int i = 0; i < n; i++) {
                elements.add(c.reply());
            }
        }
        return elements;
    }
}
