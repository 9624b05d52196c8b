package io.varve.stress.server;

import io.varve.stress.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The hostile clients: each attack runs on its own thread until {@code over} says stop, reconnecting when the
 * server closes its connection (which is what it should do to most of them), and counts those closings and
 * the error replies it reads.
 */
final class Attacks {
    static final String PASSWORD = "hostile-campaign";
    private static final int TIMEOUT = 30_000;
    /** Idle connections before AUTH, held by a child process; the campaign's server admits a few more. */
    static final int IDLE_CONNECTIONS = 10_000;

    enum Kind { GARBAGE, HUGE_COUNTS, MALFORMED, SLOWLORIS, IDLE_BEFORE_AUTH, NEVER_READING, OVERSIZED, BLOCKING }

    private final int port;
    private final Random random;
    private final BooleanSupplier over;
    private final Path childLog;
    private final CompletableFuture<Void> atFullStrength = new CompletableFuture<>();
    private long closedByServer;
    private long errorReplies;
    private volatile int mostConnections;
    private volatile String childProblem;
    private volatile String blockingSummary;

    /** @param childLog where a child process of an attack writes its stderr */
    Attacks(int port, Random random, BooleanSupplier over, Path childLog) {
        this.port = port;
        this.random = random;
        this.over = over;
        this.childLog = childLog;
    }

    /**
     * Completes once the attack is at full strength — for the idle connections, once all are open; for the
     * other kinds, at once — or once it has ended: the campaign's clock for the attack starts here.
     */
    CompletableFuture<Void> atFullStrength() {
        return atFullStrength;
    }

    /** Connections the server closed, seen as a failed write or read (it drains a while before it closes). */
    long closedByServer() {
        return closedByServer;
    }

    long errorReplies() {
        return errorReplies;
    }

    /** What the blocking clients did, once that attack is over; null for the other kinds. */
    String blockingSummary() {
        return blockingSummary;
    }

    /** The most hostile connections this attack held open at once. */
    int mostConnections() {
        return mostConnections;
    }

    void run(Kind kind) throws Exception {
        if (kind != Kind.IDLE_BEFORE_AUTH) {
            atFullStrength.complete(null);
        }
        try {
            switch (kind) {
                case GARBAGE -> repeat(this::garbage);
                case HUGE_COUNTS -> repeat(this::hugeCounts);
                case MALFORMED -> repeat(this::malformed);
                case SLOWLORIS -> slowloris(200);
                case IDLE_BEFORE_AUTH -> idleBeforeAuth(IDLE_CONNECTIONS);
                case NEVER_READING -> neverReading();
                case OVERSIZED -> oversized();
                case BLOCKING -> blockingSummary = new BlockingClients(port, random, over).run();
            }
        } finally {
            atFullStrength.complete(null);
        }
    }

    private interface Step {
        void run(RespConnection c) throws IOException;
    }

    /** Runs {@code step} on fresh connections until the attack is over. */
    private void repeat(Step step) {
        while (!over.getAsBoolean()) {
            try (RespConnection c = new RespConnection(port, TIMEOUT)) {
                while (!over.getAsBoolean()) {
                    step.run(c);
                    int errors = c.drainErrors();
                    if (errors > 0) {
                        // Refused: the server only drains this connection now; attack afresh on a new one.
                        errorReplies += errors;
                        break;
                    }
                }
            } catch (IOException e) {
                closedByServer++;
            }
        }
    }

    private void garbage(RespConnection c) throws IOException {
        byte[] junk = new byte[1 + random.nextInt(4096)];
        random.nextBytes(junk);
        if (random.nextBoolean()) {
            junk[0] = (byte) "*$+-:".charAt(random.nextInt(5)); // looks like RESP for a byte or two
        }
        c.send(junk);
    }

    private static final List<String> HUGE = List.of("*2147483647\r\n", "*5000000\r\n", "*-7\r\n",
            "*1\r\n$2147483647\r\n", "*1\r\n$999999999999\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$600000000\r\n",
            "*99999999999999999999\r\n", "*1\r\n$-5\r\n", "*2\r\n*2\r\n$1\r\na\r\n");

    private void hugeCounts(RespConnection c) throws IOException {
        c.send(HUGE.get(random.nextInt(HUGE.size())).getBytes(StandardCharsets.US_ASCII));
        // Then as many bytes as the announced size invites, up to 2 MiB: the query buffer limit is 1 MiB.
        int chunks = random.nextInt(32);
        byte[] chunk = new byte[64 << 10];
        for (int i = 0; i < chunks && !over.getAsBoolean(); i++) {
            c.send(i % 2 == 0 ? chunk : "$0\r\n\r\n".repeat(8000).getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static final String TOO_LARGE = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)";

    /**
     * Authenticated requests that would grow a string past the largest value the server can store (SETRANGE,
     * SETBIT, BITFIELD far out): each must be refused with Redis's size error and leave the key absent. A
     * value the engine could never flush once made the database unusable; here it must cost nothing.
     */
    private void oversized() throws IOException {
        while (!over.getAsBoolean()) {
            try (RespConnection c = new RespConnection(port, TIMEOUT)) {
                if (!"+OK".equals(c.call("AUTH", PASSWORD))) {
                    throw new IllegalStateException("the oversized-value client could not authenticate");
                }
                for (int i = 0; i < 100 && !over.getAsBoolean(); i++) {
                    String key = "oversized" + random.nextInt(8);
                    // Byte offsets from 256 MiB (the engine's entry limit) up to 512 MiB (proto-max-bulk-len).
                    long bytes = (1L << 28) + random.nextLong(1L << 28);
                    String[] request = switch (random.nextInt(3)) {
                        case 0 -> new String[] {"SETRANGE", key, Long.toString(bytes), "x"};
                        case 1 -> new String[] {"SETBIT", key, Long.toString(bytes * 8), "1"};
                        default -> new String[] {"BITFIELD", key, "SET", "u8", Long.toString(bytes * 8), "1"};
                    };
                    String reply = c.call(request);
                    if (!TOO_LARGE.equals(reply)) {
                        throw new IllegalStateException(String.join(" ", request) + " answered " + reply
                                + ", wanted " + TOO_LARGE);
                    }
                    errorReplies++;
                    String exists = c.call("EXISTS", key);
                    if (!":0".equals(exists)) {
                        throw new IllegalStateException("a refused " + request[0] + " left " + key + " behind ("
                                + exists + ")");
                    }
                }
            }
        }
    }

    private void malformed(RespConnection c) throws IOException {
        byte[] valid = RespConnection.command("SET", "k" + random.nextInt(100), "v".repeat(random.nextInt(100)));
        byte[] bad = valid.clone();
        int damages = 1 + random.nextInt(3);
        for (int i = 0; i < damages; i++) {
            bad[random.nextInt(bad.length)] = (byte) random.nextInt(256);
        }
        int length = random.nextInt(4) == 0 ? random.nextInt(bad.length) : bad.length;
        c.send(Arrays.copyOf(bad, length));
    }

    /** Many connections, each sending a valid command one byte at a time, round robin, never finishing. */
    private void slowloris(int connections) throws IOException {
        List<RespConnection> open = new ArrayList<>();
        byte[] command = RespConnection.command("SET", "slow", "x".repeat(1000));
        try {
            for (int i = 0; i < connections && !over.getAsBoolean(); i++) {
                open.add(new RespConnection(port, TIMEOUT));
            }
            for (int at = 0; at < command.length - 1 && !over.getAsBoolean(); at++) {
                for (RespConnection c : open) {
                    c.send(new byte[] {command[at]});
                }
            }
            awaitOver();
        } finally {
            open.forEach(RespConnection::close);
        }
    }

    /**
     * Many connections that never authenticate, most idle, every fifth sending a command that must be refused
     * ({@link IdleClientsChild}). They live in a child process: the server runs in this JVM, and holding both
     * ends of ten thousand connections in one process would take half its descriptor limit on this machine.
     */
    private void idleBeforeAuth(int connections) throws Exception {
        List<String> args = List.of(String.valueOf(port), String.valueOf(connections));
        try (ChildJvm child = ChildJvm.start(IdleClientsChild.class, args, childLog, this::idleClientsSaid)) {
            while (!over.getAsBoolean() && childProblem == null) {
                if (!child.isAlive() && !atFullStrength.isDone()) {
                    childProblem = "the idle-clients process exited with code " + child.awaitExit(TIMEOUT / 1000)
                            + " before holding its connections (see " + childLog + ")";
                    break;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        if (childProblem != null) {
            throw new IllegalStateException(childProblem);
        }
    }

    private void idleClientsSaid(String line) {
        String[] words = line.split(" ", 3);
        switch (words[0]) {
            case "held" -> mostConnections = Integer.parseInt(words[1]);
            case "all" -> {
                mostConnections = Integer.parseInt(words[1]);
                atFullStrength.complete(null);
            }
            case "refused" -> { } // it holds what it opened; "all" follows with the count
            default -> {
                childProblem = "the idle-clients process said: " + line;
                atFullStrength.complete(null);
            }
        }
    }

    /** Authenticated pipelines of GETs of a 256 KiB value whose replies are never read. */
    private void neverReading() throws Exception {
        try (RespConnection setup = new RespConnection(port, TIMEOUT)) {
            setup.call("AUTH", PASSWORD);
            setup.call("SET", "big", "b".repeat(256 << 10));
        }
        List<RespConnection> open = new ArrayList<>();
        List<Thread> writers = new ArrayList<>();
        byte[] gets = new String(RespConnection.command("GET", "big"), StandardCharsets.US_ASCII).repeat(100)
                .getBytes(StandardCharsets.US_ASCII);
        try {
            for (int i = 0; i < 4; i++) {
                RespConnection c = new RespConnection(port, TIMEOUT);
                c.call("AUTH", PASSWORD);
                open.add(c);
                // The writes block once the server stops reading this client (its replies wait unread).
                writers.add(Thread.ofPlatform().daemon().name("never-reading-" + i).start(() -> {
                    try {
                        while (!over.getAsBoolean()) {
                            c.send(gets);
                        }
                    } catch (IOException e) {
                        // closed at the end of the attack, or by the server
                    }
                }));
            }
            awaitOver();
        } finally {
            open.forEach(RespConnection::close);
            for (Thread t : writers) {
                t.join(TIMEOUT);
            }
        }
    }

    private void awaitOver() {
        while (!over.getAsBoolean()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // the attack holds its connections open
        }
    }
}
