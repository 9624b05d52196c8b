package io.varve.stress.server;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.Corruptions;
import io.varve.stress.Failure;
import io.varve.stress.KillSchedule;
import io.varve.stress.Progress;
import io.varve.stress.Reproducer;
import io.varve.stress.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Kill -9 against the server: {@code VarveMain} with {@code appendfsync always} in a child JVM, written to by
 * 4, 16 or {@value #CONNECTIONS} Lettuce connections (drawn per cycle) sending pipelined SET, MSET, RPUSH,
 * HSET, INCR and DEL, and now and then a SETRANGE past the largest value the engine stores (which must be
 * refused with Redis's size error and change nothing), is killed
 * with SIGKILL at a random moment, restarted on the same directory, and read back. Per connection (each owns
 * its keys, and the server executes a connection's commands in order) the state must be the one after a
 * prefix of the commands sent that holds every acknowledged one: under {@code appendfsync always} a reply
 * means the write is on the device. Every reply must also be the one the model predicts, and no key outside
 * the connections' key spaces may appear. A cycle whose clients saw no write acknowledged by the kill fails as
 * "no progress" ({@link Progress}). The restarted server serves the next cycle.
 */
public final class ServerKillCampaign implements Campaign {
    /** Key spaces, one per connection; a cycle writes through the first 4, 16 or all of them. */
    static final int CONNECTIONS = 64;
    private static final int[] ACTIVE = {4, 16, CONNECTIONS};
    static final Duration START_LIMIT = Duration.ofSeconds(90);
    private static final long SETTLE_MILLIS = 30_000;

    private final Duration maxRun;

    public ServerKillCampaign(Duration maxRun) {
        this.maxRun = maxRun;
    }

    @Override
    public String name() {
        return "server-kill";
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path dir = settings.workDir().resolve("server-kill");
        Path stderr = settings.workDir().resolve("server-kill-server.err");
        Path afterKill = settings.workDir().resolve("server-kill-after-kill");
        Files.createDirectories(dir);
        Files.deleteIfExists(stderr);
        ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2)
                .computationThreadPoolSize(1).build();
        ServerProcess server = ServerProcess.start(dir, stderr, START_LIMIT);
        List<ConnectionModel> models = new ArrayList<>();
        List<Map<String, String>> base = new ArrayList<>();
        long acknowledged = 0;
        long inFlight = 0;
        KillSchedule kills = KillSchedule.replaying(settings.replay());
        try {
            for (int c = 0; c < CONNECTIONS; c++) {
                models.add(new ConnectionModel(c, Map.of()));
            }
            base.addAll(readAll(resources, server, models)); // a store left by an earlier run in the directory
            for (int c = 0; c < CONNECTIONS; c++) {
                models.get(c).reset(base.get(c));
            }
            for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start);
                    cycle++) {
                List<RedisClient> clients = new ArrayList<>();
                List<PipelinedClient> pipelines = new ArrayList<>();
                Progress progress = new Progress();
                // The server is already up: every delay counts from when the clients start.
                KillSchedule.Kill kill = kills.next(cycle, random, maxRun);
                Random workload = new Random(kill.workloadSeed());
                int active = ACTIVE[workload.nextInt(ACTIVE.length)];
                for (int c = 0; c < active; c++) {
                    RedisClient client = client(resources, server.port());
                    clients.add(client);
                    StatefulRedisConnection<String, String> connection = client.connect();
                    PipelinedClient p = new PipelinedClient(connection, models.get(c), new Random(workload.nextLong()),
                            cycle, progress);
                    pipelines.add(p);
                    p.start("server-kill-client-" + c);
                }
                long runMillis = kill.delayMillis();
                String problem = null;
                if (server.exitedWithin(Duration.ofMillis(runMillis))) {
                    problem = "the server exited on its own";
                } else if (!progress.awaitFirst(Progress.LIMIT)) {
                    problem = Progress.noProgress(Progress.LIMIT);
                }
                server.kill();
                pipelines.forEach(PipelinedClient::requestStop);
                for (PipelinedClient p : pipelines) {
                    if (!p.stop(SETTLE_MILLIS) || !p.closeAndSettle(SETTLE_MILLIS)) {
                        problem = "a client did not stop or its commands did not settle after the kill";
                    } else if (p.crashed() != null) {
                        problem = "a client crashed: " + p.crashed();
                    }
                }
                for (RedisClient client : clients) {
                    client.shutdown(0, 5, TimeUnit.SECONDS);
                }
                List<List<PipelinedClient.Sent>> sent = new ArrayList<>();
                for (int c = 0; c < CONNECTIONS; c++) {
                    sent.add(c < active ? pipelines.get(c).sent() : List.of()); // an idle key space must not change
                }
                int[] acked = new int[CONNECTIONS];
                for (int c = 0; problem == null && c < CONNECTIONS; c++) {
                    List<PipelinedClient.Sent> s = sent.get(c);
                    while (acked[c] < s.size() && s.get(acked[c]).acknowledged) {
                        acked[c]++;
                    }
                    for (int i = 0; problem == null && i < s.size(); i++) {
                        if (s.get(i).wrongReply != null) {
                            problem = "connection " + c + ", command " + i + " (" + s.get(i).command + ") "
                                    + s.get(i).wrongReply;
                        } else if (i > acked[c] && s.get(i).acknowledged) {
                            problem = "connection " + c + ": command " + i + " was answered, command " + acked[c]
                                    + " before it was not";
                        }
                    }
                }
                Corruptions.copyDirectory(dir, afterKill); // the restart changes the directory
                List<Map<String, String>> actual = null;
                if (problem == null) {
                    try {
                        server = ServerProcess.start(dir, stderr, START_LIMIT);
                        actual = readAll(resources, server, models);
                    } catch (Exception e) {
                        problem = "restart: " + e;
                    }
                }
                int recoveredInFlight = 0;
                for (int c = 0; problem == null && c < CONNECTIONS; c++) {
                    int k = matchingPrefix(base.get(c), sent.get(c), acked[c], actual.get(c));
                    if (k < 0) {
                        problem = "connection " + c + ": the state is no prefix of the " + sent.get(c).size()
                                + " commands sent that holds the " + acked[c] + " acknowledged";
                    } else {
                        recoveredInFlight += k - acked[c];
                    }
                }
                if (problem != null) {
                    report.failure(fail(settings, kills, cycle, problem, sent, dir, stderr));
                    break;
                }
                int cycleAcked = 0;
                int cycleSent = 0;
                for (int c = 0; c < CONNECTIONS; c++) {
                    models.get(c).reset(actual.get(c));
                    cycleAcked += acked[c];
                    cycleSent += sent.get(c).size();
                }
                base = actual;
                acknowledged += cycleAcked;
                inFlight += cycleSent - cycleAcked;
                report.cycle("killed-" + active + "-connections");
                settings.progress(String.format("%s cycle %d: %d connections, killed %d ms in, %d writes "
                        + "acknowledged, %d in flight of which %d applied", name(), cycle, active, runMillis, cycleAcked,
                        cycleSent - cycleAcked, recoveredInFlight));
            }
        } finally {
            server.close();
            resources.shutdown(0, 5, TimeUnit.SECONDS);
        }
        report.finished((System.nanoTime() - start) / 1_000_000);
        settings.progress(name() + ": " + acknowledged + " writes acknowledged, all present after the restarts; "
                + inFlight + " were in flight at the kills");
        return report;
    }

    private static RedisClient client(ClientResources resources, int port) {
        RedisClient client = RedisClient.create(resources, RedisURI.builder().withHost("127.0.0.1").withPort(port)
                .withTimeout(Duration.ofSeconds(30)).build());
        // No reconnect: a command must never reach the restarted server behind the campaign's back.
        client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).autoReconnect(false)
                .build());
        return client;
    }

    /** Every connection's keys as the server has them; any key outside all key spaces fails. */
    private static List<Map<String, String>> readAll(ClientResources resources, ServerProcess server,
            List<ConnectionModel> models) {
        RedisClient client = client(resources, server.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            Set<String> known = new HashSet<>();
            List<Map<String, String>> states = new ArrayList<>();
            for (ConnectionModel m : models) {
                known.addAll(m.keys());
                states.add(m.read(connection.sync()));
            }
            Set<String> stray = new TreeSet<>(connection.sync().keys("*"));
            stray.removeAll(known);
            if (!stray.isEmpty()) {
                throw new IllegalStateException("keys no client wrote: " + stray);
            }
            return states;
        } finally {
            client.shutdown(0, 5, TimeUnit.SECONDS);
        }
    }

    /** The length of the prefix of {@code sent}, at least {@code acked}, whose state is {@code actual}; or -1. */
    static int matchingPrefix(Map<String, String> base, List<PipelinedClient.Sent> sent, int acked,
            Map<String, String> actual) {
        Map<String, String> state = new HashMap<>(base);
        for (int i = 0; i < acked; i++) {
            sent.get(i).command.applyTo(state);
        }
        for (int k = acked; ; k++) {
            if (state.equals(actual)) {
                return k;
            }
            if (k == sent.size()) {
                return -1;
            }
            sent.get(k).command.applyTo(state);
        }
    }

    private Failure fail(Settings settings, KillSchedule kills, long cycle, String what,
            List<List<PipelinedClient.Sent>> sent, Path dir, Path stderr) {
        List<String> tail = new ArrayList<>();
        for (int c = 0; c < sent.size(); c++) {
            List<PipelinedClient.Sent> s = sent.get(c);
            for (int i = Math.max(0, s.size() - 50); i < s.size(); i++) {
                tail.add("connection " + c + " #" + i + (s.get(i).acknowledged ? " acked " : " unacked ")
                        + s.get(i).command);
            }
        }
        Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle, what, tail,
                Map.of("data-after-kill", settings.workDir().resolve("server-kill-after-kill"), "data-after-restart", dir,
                        "server.err", stderr), kills);
        settings.progress(name() + " cycle " + cycle + " FAILED: " + what);
        return new Failure(cycle, what, reproducer);
    }
}
