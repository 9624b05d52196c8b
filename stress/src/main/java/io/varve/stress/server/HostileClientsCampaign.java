package io.varve.stress.server;

import io.varve.server.RedisServer;
import io.varve.server.ServerConfig;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.Corruptions;
import io.varve.stress.Failure;
import io.varve.stress.Reproducer;
import io.varve.stress.Settings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Hostile clients against the server, in-process (with a password and a 1 MiB query buffer limit): each
 * cycle runs one {@link Attacks.Kind}, each in turn, for a random time while a well-behaved client keeps
 * authenticating once, then writing and reading its own keys. The blocking kind carries its own oracle
 * ({@link BlockingClients}: no element lost, duplicated or served across databases, no waiter left
 * registered) and fails the cycle when it does not hold. Checks: every one of the well-behaved client's
 * requests is answered correctly (each within 30 s, a hang detector); it is not starved: each cycle first
 * measures it alone for a third of the longest attack, then again while the attack is at full strength, and
 * {@link BystanderMeter#judge} requires under attack at least 1/{@value BystanderMeter#RATE_DIVISOR} of its
 * answers per second and no wait longer than the larger of 1 s and {@value BystanderMeter#LATENCY_FACTOR}
 * times its 99th percentile without; after a full GC at the end of the attack, with the hostile connections
 * still open, the heap holds less than {@value #HEAP_BOUND_MIB} MiB more than before the server met any of
 * them; the server still accepts and answers a new client afterwards.
 */
public final class HostileClientsCampaign implements Campaign {
    static final long HEAP_BOUND_MIB = 192;
    private static final int TIMEOUT = 30_000;
    /** Answers the well-behaved client has before it is measured: its connection and the JIT warmed up. */
    private static final long WARM_UP = 500;
    /**
     * How long an attack may take to reach full strength before the run counts it as a hang: the idle-clients
     * attack starts a JVM that opens 10,000 connections, which on a loaded two-core machine can take a while.
     */
    private static final int FULL_STRENGTH_LIMIT = 180_000;

    private final Duration longestAttack;

    /** Attacks last between a third of {@code longestAttack} and all of it. */
    public HostileClientsCampaign(Duration longestAttack) {
        this.longestAttack = longestAttack;
    }

    @Override
    public String name() {
        return "hostile-clients";
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path dir = settings.workDir().resolve("hostile-clients");
        Corruptions.deleteDirectory(dir);
        ServerConfig config = ServerConfig.defaultConfig().with("port", "0").with("dir", dir.toString())
                .with("requirepass", Attacks.PASSWORD).with("client-query-buffer-limit", "1mb")
                .with("io-threads", "2").with("write-buffer-size", "4mb")
                // room for the well-behaved client and the one that checks the server after each attack
                .with("maxclients", String.valueOf(Attacks.IDLE_CONNECTIONS + 100));
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long answered = 0;
        try (RedisServer server = RedisServer.builder(config).build().start()) {
            memory.gc();
            long baseline = memory.getHeapMemoryUsage().getUsed();
            for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start);
                    cycle++) {
                // In turn, so that a short run meets every kind.
                Attacks.Kind kind = Attacks.Kind.values()[(int) ((cycle - 1) % Attacks.Kind.values().length)];
                long attackMillis = longestAttack.toMillis() / 3 + random.nextLong(longestAttack.toMillis() * 2 / 3);
                AtomicBoolean over = new AtomicBoolean();
                Attacks attacks = new Attacks(server.port(), new Random(random.nextLong()), over::get,
                        dir.resolve("attack-child.stderr"));
                BystanderMeter meter = new BystanderMeter();
                CompletableFuture<String> bystander = CompletableFuture.supplyAsync(
                        () -> behave(server.port(), over, meter), runnable -> Thread.ofPlatform()
                                .daemon().name("well-behaved").start(runnable));
                String problem = null;
                BystanderMeter.Window alone = null;
                if (meter.awaitAnswers(WARM_UP, TIMEOUT)) {
                    meter.begin();
                    LockSupport.parkNanos(longestAttack.toNanos() / 3); // a measurement window, not a wait
                    alone = meter.end();
                } else {
                    problem = "the well-behaved client had fewer than " + WARM_UP + " answers after " + TIMEOUT
                            + " ms without an attack";
                }
                CompletableFuture<Void> attack = CompletableFuture.runAsync(() -> {
                    try {
                        attacks.run(kind);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, runnable -> Thread.ofPlatform().daemon().name("attack").start(runnable));
                try {
                    attacks.atFullStrength().get(FULL_STRENGTH_LIMIT, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    problem = "the attack was not at full strength after " + FULL_STRENGTH_LIMIT + " ms";
                }
                meter.begin();
                try {
                    attack.get(problem == null ? attackMillis : 0, TimeUnit.MILLISECONDS);
                    problem = problem != null ? problem : "the attack ended early";
                } catch (TimeoutException expected) {
                    // the attack is still under way, as it should be: measure the heap now
                } catch (Exception e) {
                    problem = problem != null ? problem : "the attack failed: " + e.getCause();
                }
                BystanderMeter.Window attacked = meter.end();
                if (problem == null && !bystander.isDone()) { // one that ended early says why itself, below
                    problem = BystanderMeter.judge(alone, attacked);
                    problem = problem == null ? null : "under " + kind + ", " + problem;
                }
                memory.gc();
                long grown = (memory.getHeapMemoryUsage().getUsed() - baseline) >> 20;
                over.set(true);
                if (problem == null && grown > HEAP_BOUND_MIB) {
                    problem = "the heap grew by " + grown + " MiB under " + kind + " (bound " + HEAP_BOUND_MIB
                            + " MiB)";
                }
                try {
                    attack.get(TIMEOUT, TimeUnit.MILLISECONDS);
                    String b = bystander.get(TIMEOUT, TimeUnit.MILLISECONDS);
                    if (problem == null && b != null) {
                        problem = "the well-behaved client, under " + kind + ": " + b;
                    }
                } catch (Exception e) {
                    problem = problem != null ? problem : "under " + kind + ": " + e;
                }
                if (problem == null) {
                    try (RespConnection after = new RespConnection(server.port(), TIMEOUT)) {
                        if (!"+OK".equals(after.call("AUTH", Attacks.PASSWORD))) {
                            problem = "a new client could not authenticate after " + kind;
                        }
                    } catch (IOException e) {
                        problem = "a new client could not connect after " + kind + ": " + e;
                    }
                }
                if (problem != null) {
                    Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle,
                            problem, List.of("attack " + kind + " for " + attackMillis + " ms"), Map.of());
                    report.failure(new Failure(cycle, problem, reproducer));
                    settings.progress(name() + " cycle " + cycle + " FAILED: " + problem);
                    break;
                }
                answered += meter.totalAnswers();
                report.cycle(kind.name().toLowerCase().replace('_', '-'));
                settings.progress(String.format("%s cycle %d: %s for %d ms, heap +%d MiB, %d error replies, %d "
                        + "connections closed by the server; the well-behaved client: %s alone, %s under attack%s",
                        name(), cycle, kind, attackMillis, grown, attacks.errorReplies(), attacks.closedByServer(),
                        alone, attacked, attacks.mostConnections() == 0 ? ""
                                : ", " + attacks.mostConnections() + " idle connections held")
                        + (attacks.blockingSummary() == null ? "" : "; blocking clients: " + attacks.blockingSummary()));
            }
        }
        report.finished((System.nanoTime() - start) / 1_000_000);
        settings.progress(name() + ": the well-behaved client got " + answered + " correct answers");
        return report;
    }

    /** The well-behaved client: null if every answer was right until {@code over}, else what went wrong. */
    private static String behave(int port, AtomicBoolean over, BystanderMeter meter) {
        try (RespConnection c = new RespConnection(port, TIMEOUT)) {
            if (!"+OK".equals(c.call("AUTH", Attacks.PASSWORD))) {
                return "AUTH refused";
            }
            for (long n = 0; !over.get(); n++) {
                String key = "good" + (n % 100);
                String value = "v" + n;
                meter.sent();
                String set = c.call("SET", key, value);
                meter.answered();
                meter.sent();
                String got = c.call("GET", key);
                meter.answered();
                if (!"+OK".equals(set) || !value.equals(got)) {
                    return "SET answered " + set + ", GET answered " + got + " (wanted " + value + ")";
                }
            }
            return null;
        } catch (IOException e) {
            return e.toString();
        }
    }
}
