package io.varve.stress.cluster;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.varve.stress.Campaign;
import io.varve.stress.CampaignReport;
import io.varve.stress.Failure;
import io.varve.stress.KillSchedule;
import io.varve.stress.Progress;
import io.varve.stress.Reproducer;
import io.varve.stress.Settings;
import io.varve.stress.cluster.ReplicaReader.NodeState;
import io.varve.testsupport.RaftProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Kill -9 and partitions against cluster mode: three {@code VarveMain} processes with {@value #GROUPS} Raft
 * groups splitting the slots, written to by {@value #WORKERS} workers of Lettuce's cluster client
 * ({@link ClusterWorkload}: strings, hashes, lists, sets, sorted sets and MULTI/EXEC within a slot, over keys
 * of all groups). Each cycle starts once the leader balancer has spread the groups' leaders evenly over the
 * nodes, then, at a moment drawn from the seed ({@link KillSchedule}), loses a node leading groups by the
 * cycle's {@link ClusterFault}: kills it with SIGKILL, or cuts its Raft traffic off through the
 * {@link RaftProxy}s while its clients still reach it. It requires the cluster to go on (writes to the lost
 * node's groups acknowledged again after their failover, writes to the other groups acknowledged while it is
 * lost) and a cut-off node to step down from every group it led; then restarts the node or heals the cut,
 * and once the groups have settled (the returned node caught up) judges every node: each node's own copy of every key (read after {@code READONLY}) sums to the same
 * checksum per slot as the others', holds as many keys as INFO keyspace says, and the state is one the
 * acknowledged and unacknowledged writes allow ({@link KeyHistory}). A cycle with fewer than
 * {@value #MIN_ACKNOWLEDGED} acknowledged writes fails as "no progress".
 */
public final class ClusterKillCampaign implements Campaign {
    static final int GROUPS = 6;
    static final int WORKERS = 4;
    private static final int KEYS_PER_KIND = 6;
    /** Writes a cycle must acknowledge; fewer means the cluster made no progress worth judging. */
    static final int MIN_ACKNOWLEDGED = 20;
    /** Writes acknowledged on the killed node's groups (failover) and on the others (bystanders) while it is down. */
    static final int MIN_DURING_OUTAGE = 3;
    private static final Duration START_LIMIT = Duration.ofSeconds(180);
    private static final long STOP_MILLIS = 30_000;

    private final Duration maxRun;
    private final List<ClusterFault> faults;

    /** Kills only. */
    public ClusterKillCampaign(Duration maxRun) {
        this(maxRun, List.of(ClusterFault.KILL));
    }

    /** The cycles take {@code faults} in turn. */
    public ClusterKillCampaign(Duration maxRun, List<ClusterFault> faults) {
        if (faults.isEmpty()) {
            throw new IllegalArgumentException("no fault to inject");
        }
        this.maxRun = maxRun;
        this.faults = List.copyOf(faults);
    }

    @Override
    public String name() {
        return "cluster-kill";
    }

    @Override
    public CampaignReport run(Settings settings) throws Exception {
        CampaignReport report = new CampaignReport(name());
        long start = System.nanoTime();
        Random random = new Random(settings.seed());
        Path root = settings.workDir().resolve("cluster-kill");
        Files.createDirectories(root);
        ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2)
                .computationThreadPoolSize(1).build();
        NodeProcesses nodes = new NodeProcesses(root, GROUPS, resources);
        ClusterWorkload workload = new ClusterWorkload(WORKERS, KEYS_PER_KIND);
        KillSchedule kills = KillSchedule.replaying(settings.replay());
        long acknowledged = 0;
        long unknown = 0;
        try {
            for (int i = 0; i < NodeProcesses.SIZE; i++) {
                nodes.start(i);
            }
            nodes.await(info -> "ok".equals(info.get("cluster_state")), START_LIMIT, "every group led");
            int[] groupOfSlot = ClusterState.groupOfSlot(nodes.info(0), GROUPS);
            for (long cycle = 1; cycle <= settings.cycles() && System.nanoTime() < settings.deadlineNanos(start);
                    cycle++) {
                // The first elections may all go to one node, and a returned node gets its groups back only
                // from the balancer: killing a node leading every group would leave no bystander to judge.
                String ledBefore = groupsLedPerNode(nodes);
                long spreadStart = System.nanoTime();
                nodes.await(info -> ClusterState.leadsItsShare(info, GROUPS, NodeProcesses.SIZE), START_LIMIT,
                        "leaders spread " + GROUPS / NodeProcesses.SIZE + " per node");
                settings.progress(String.format("%s cycle %d: groups led per node %s, spread %d per node after %d ms",
                        name(), cycle, ledBefore, GROUPS / NodeProcesses.SIZE,
                        (System.nanoTime() - spreadStart) / 1_000_000));
                CycleGates gates = new CycleGates(groupOfSlot);
                ClusterFault fault = ClusterFault.ofCycle(faults, cycle);
                KillSchedule.Kill kill = kills.next(cycle, random, maxRun);
                Random draws = new Random(kill.workloadSeed());
                List<Integer> leading = new ArrayList<>();
                for (int i = 0; i < NodeProcesses.SIZE; i++) {
                    Map<String, String> info = nodes.info(i);
                    if (info != null && !"0".equals(info.get("cluster_groups_led"))) {
                        leading.add(i);
                    }
                }
                int victim = leading.get(draws.nextInt(leading.size()));
                RedisClusterClient client = clusterClient(resources, nodes);
                ClusterWorkload.Running running = workload.start(client, draws.nextLong(), gates);
                String problem = null;
                boolean[] victimGroups = new boolean[GROUPS];
                try {
                    if (nodes.anyExitedWithin(kill.delay())) {
                        problem = "a node exited on its own";
                    } else if (!gates.first.awaitFirst(Progress.LIMIT)) {
                        problem = Progress.noProgress(Progress.LIMIT);
                    }
                    victimGroups = ClusterState.groupsLed(nodes.info(victim), GROUPS);
                    gates.outage(victimGroups);
                    if (fault == ClusterFault.KILL) {
                        nodes.kill(victim);
                    } else {
                        nodes.isolate(victim);
                    }
                    gates.nodeLost();
                    if (problem == null) {
                        problem = gates.awaitOutageProgress(Progress.LIMIT);
                    }
                    if (problem == null && fault == ClusterFault.PARTITION) {
                        problem = awaitSteppedDown(nodes, victim);
                    }
                    if (fault == ClusterFault.KILL) {
                        nodes.start(victim);
                    } else {
                        nodes.heal();
                    }
                    nodes.await(info -> "ok".equals(info.get("cluster_state")), START_LIMIT,
                            "node " + victim + " back and every group led");
                    gates.returned();
                    if (problem == null && !gates.awaitAfterReturn(Progress.LIMIT)) {
                        problem = "no progress after node " + victim + " returned: fewer than " + MIN_DURING_OUTAGE
                                + " writes acknowledged within " + Progress.LIMIT.toSeconds() + " s";
                    }
                } catch (java.io.IOException e) {
                    problem = "cluster: " + e.getMessage();
                } finally {
                    String stopped = running.stop(STOP_MILLIS);
                    problem = problem == null ? stopped : problem;
                    try {
                        nodes.heal(); // a partition cut short by a failure must not outlive its cycle
                    } catch (java.io.IOException e) {
                        problem = problem == null ? "could not heal the partition: " + e.getMessage() : problem;
                    }
                    client.shutdown(0, 5, TimeUnit.SECONDS);
                }
                long cycleAcked = running.acknowledged();
                if (problem == null && cycleAcked < MIN_ACKNOWLEDGED) {
                    problem = "no progress: " + cycleAcked + " writes acknowledged in the cycle, fewer than "
                            + MIN_ACKNOWLEDGED;
                }
                if (problem == null) {
                    problem = judge(nodes, workload);
                }
                if (problem != null) {
                    report.failure(fail(settings, kills, cycle, problem, workload, nodes));
                    break;
                }
                acknowledged += cycleAcked;
                unknown += running.unknown();
                int led = 0;
                for (boolean v : victimGroups) {
                    led += v ? 1 : 0;
                }
                boolean killed = fault == ClusterFault.KILL;
                report.cycle((killed ? "killed" : "partitioned") + "-a-node-leading-" + led + "-groups");
                settings.progress(String.format("%s cycle %d: node %d (leading %d groups) %s %d ms in; %d writes "
                        + "acknowledged (%d to its groups and %d to the others while it was %s), %d of unknown "
                        + "outcome;%s replicas agree", name(), cycle, victim, led, killed ? "killed" : "cut off",
                        kill.delayMillis(), cycleAcked, gates.failoverAcks(), gates.bystanderAcks(),
                        killed ? "down" : "cut off", running.unknown(),
                        killed ? "" : " it stepped down, caught up after the heal;"));
            }
        } catch (java.io.IOException e) {
            report.failure(fail(settings, kills, 0, "cluster: " + e.getMessage(), workload, nodes));
        } finally {
            nodes.close();
            resources.shutdown(0, 5, TimeUnit.SECONDS);
        }
        report.finished((System.nanoTime() - start) / 1_000_000);
        settings.progress(name() + ": " + acknowledged + " writes acknowledged, every one present on every replica; "
                + unknown + " of unknown outcome");
        return report;
    }

    /**
     * Waits until every group's replicas have applied all the group committed, then reads each node's copy:
     * null when the replicas agree with each other and with the writes, else the first disagreement.
     */
    private static String judge(NodeProcesses nodes, ClusterWorkload workload) throws Exception {
        try {
            ClusterState.awaitApplied(nodes, GROUPS, Progress.LIMIT);
        } catch (java.io.IOException e) {
            return e.getMessage();
        }
        List<KeyHistory> histories = workload.histories();
        List<NodeState> states = new ArrayList<>();
        for (int i = 0; i < NodeProcesses.SIZE; i++) {
            RedisClient client = nodes.plainClient(i);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                states.add(ReplicaReader.read(c.sync(), histories));
            } finally {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
            long held = ClusterState.keysHeld(nodes.info(i));
            if (held != states.get(i).redisKeys()) {
                return "node " + i + " holds " + held + " keys (INFO keyspace), the workload's keys there are "
                        + states.get(i).redisKeys() + ": keys no one wrote";
            }
        }
        for (int i = 1; i < states.size(); i++) {
            String differs = ClusterState.firstDifference(states.get(0), states.get(i));
            if (differs != null) {
                return "the replicas disagree: node 0 and node " + i + " " + differs;
            }
        }
        for (KeyHistory h : histories) {
            String wrong = h.judge(states.get(0).keys().get(h.key()));
            if (wrong != null) {
                return wrong;
            }
        }
        for (KeyHistory h : histories) {
            h.settle(states.get(0).keys().get(h.key()));
        }
        return null;
    }

    /**
     * Null once the cut-off node leads no group (a leader that cannot reach a majority steps down after an
     * election timeout), else why not: while it claims a group, its clients are sent to a leader that can
     * commit nothing.
     */
    private static String awaitSteppedDown(NodeProcesses nodes, int victim) {
        try {
            nodes.awaitNode(victim, info -> "0".equals(info.get("cluster_groups_led")), Progress.LIMIT,
                    "the cut-off node " + victim + " to lead no group");
            return null;
        } catch (java.io.IOException e) {
            return "no step-down: " + e.getMessage();
        }
    }

    /** How many groups each node leads now, as "a/b/c" ("?" for a node not answering). */
    private static String groupsLedPerNode(NodeProcesses nodes) {
        List<String> led = new ArrayList<>();
        for (int i = 0; i < NodeProcesses.SIZE; i++) {
            Map<String, String> info = nodes.info(i);
            led.add(info == null ? "?" : info.getOrDefault("cluster_groups_led", "?"));
        }
        return String.join("/", led);
    }

    private static RedisClusterClient clusterClient(ClientResources resources, NodeProcesses nodes) {
        List<RedisURI> seeds = new ArrayList<>();
        for (int i = 0; i < NodeProcesses.SIZE; i++) {
            seeds.add(RedisURI.builder().withHost("127.0.0.1").withPort(nodes.clientPort(i))
                    .withTimeout(Duration.ofSeconds(10)).build());
        }
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder().protocolVersion(ProtocolVersion.RESP2)
                .autoReconnect(false) // at most once: see ClusterWorkload
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers()
                        .enablePeriodicRefresh(Duration.ofSeconds(1)).build())
                .build());
        return client;
    }

    private Failure fail(Settings settings, KillSchedule kills, long cycle, String what, ClusterWorkload workload,
            NodeProcesses nodes) {
        List<String> tail = new ArrayList<>();
        for (KeyHistory h : workload.histories()) {
            List<KeyHistory.Write> writes = h.writes();
            for (int i = Math.max(0, writes.size() - 20); i < writes.size(); i++) {
                tail.add(h.key() + " " + writes.get(i).token() + (writes.get(i).acknowledged() ? " acked" : " unknown"));
            }
        }
        Map<String, Path> files = new LinkedHashMap<>();
        for (int i = 0; i < NodeProcesses.SIZE; i++) {
            files.put("node" + i, nodes.dir(i));
            files.put("node" + i + ".err", nodes.stderr(i));
        }
        List<String> faultNames = new ArrayList<>();
        faults.forEach(f -> faultNames.add(f.name().toLowerCase(java.util.Locale.ROOT)));
        Path reproducer = Reproducer.write(settings.reproducerDir(), name(), settings.seed(), cycle, what, tail, files,
                kills, "--faults " + String.join(",", faultNames));
        settings.progress(name() + " cycle " + cycle + " FAILED: " + what);
        return new Failure(cycle, what, reproducer);
    }
}
