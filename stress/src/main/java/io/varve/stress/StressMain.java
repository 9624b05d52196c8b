package io.varve.stress;

import io.varve.stress.cluster.ClusterFault;
import io.varve.stress.cluster.ClusterKillCampaign;
import io.varve.stress.engine.EngineCorruptionCampaign;
import io.varve.stress.enginekill.EngineIoErrorCampaign;
import io.varve.stress.enginekill.EngineKillCampaign;
import io.varve.stress.lifecycle.LifecycleCampaign;
import io.varve.stress.raftlog.RaftLogCorruptionCampaign;
import io.varve.stress.raftlog.RaftLogIoErrorCampaign;
import io.varve.stress.raftlog.RaftLogKillCampaign;
import io.varve.stress.server.HostileClientsCampaign;
import io.varve.stress.server.ServerKillCampaign;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.LogManager;

/**
 * {@code bin/stress <target|campaign> [--cycles N] [--minutes M] [--seed S] [--campaign NAME]
 * [--work DIR] [--reproducers DIR] [--replay FILE] [--faults LIST]}: runs a target's campaigns (raftlog, engine, server, cluster) one after the other,
 * sharing the time and cycle budget, or one campaign by name (engine-kill, engine-io-errors, raftlog-io-errors,
 * server-kill, ...); prints progress and one verdict line per campaign, and exits 0 only if every campaign
 * passed (known defects listed in the verdict do not fail it). {@code --replay} gives a kill campaign the kill
 * schedule a reproducer recorded ({@link KillSchedule}); {@code --faults kill,partition} chooses what
 * {@code cluster-kill} does to a node, the kinds taken in turn (default: kill). See docs/reliability.md.
 */
public final class StressMain {

    private StressMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].startsWith("-")) {
            usage("name a target");
        }
        quietLogging();
        String target = args[0];
        long cycles = Long.MAX_VALUE;
        double minutes = 5;
        long seed = System.nanoTime();
        String only = null;
        Path work = Path.of("stress", "target", "stress-work");
        Path reproducers = Path.of("stress", "target", "reproducers");
        Path replay = null;
        List<ClusterFault> faults = List.of(ClusterFault.KILL);
        for (int i = 1; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--cycles" -> cycles = Long.parseLong(require(value, args[i]));
                case "--minutes" -> minutes = Double.parseDouble(require(value, args[i]));
                case "--seed" -> seed = Long.parseLong(require(value, args[i]));
                case "--campaign" -> only = require(value, args[i]);
                case "--work" -> work = Path.of(require(value, args[i]));
                case "--reproducers" -> reproducers = Path.of(require(value, args[i]));
                case "--replay" -> replay = Path.of(require(value, args[i]));
                case "--faults" -> faults = faults(require(value, args[i]));
                default -> usage("unknown option " + args[i]);
            }
            i++;
        }
        List<Campaign> campaigns = new ArrayList<>(campaigns(target, faults)); // --campaign filters it
        if (campaigns.isEmpty()) {
            usage("unknown target or campaign " + target);
        }
        if (only != null) {
            String name = only;
            campaigns.removeIf(c -> !c.name().equals(name));
            if (campaigns.isEmpty()) {
                usage("target " + target + " has no campaign " + name);
            }
        }
        Path runDir = work.resolve(target + "-" + seed);
        Files.createDirectories(runDir);
        System.out.println("stress: " + target + ", seed " + seed + ", " + minutes + " min"
                + (cycles == Long.MAX_VALUE ? "" : ", " + cycles + " cycles") + ", work in " + runDir);
        Duration share = Duration.ofMillis((long) (minutes * 60_000 / campaigns.size()));
        long perCampaign = cycles == Long.MAX_VALUE ? cycles : Math.max(1, cycles / campaigns.size());
        boolean passed = true;
        List<String> verdicts = new ArrayList<>();
        for (Campaign campaign : campaigns) {
            Settings settings = new Settings(perCampaign, share, seed, runDir, reproducers, System.out,
                    replay);
            CampaignReport report = campaign.run(settings);
            passed &= report.passed();
            verdicts.add(report.verdict());
            System.out.println(report.verdict());
        }
        if (verdicts.size() > 1) {
            System.out.println((passed ? "PASS " : "FAIL ") + target + ": " + verdicts.size() + " campaigns");
        }
        System.exit(passed ? 0 : 1);
    }

    /**
     * A target's campaigns in the order they run, or the one campaign of that name; empty if neither. A
     * target runs each of its campaigns in turn on a share of the budget.
     */
    static List<Campaign> campaigns(String target, List<ClusterFault> faults) {
        List<Campaign> raftlog = List.of(new RaftLogKillCampaign(Duration.ofSeconds(3)),
                new RaftLogCorruptionCampaign(), new RaftLogIoErrorCampaign(1000));
        List<Campaign> engine = List.of(new EngineCorruptionCampaign(), new EngineKillCampaign(Duration.ofSeconds(4)),
                new LifecycleCampaign(), new EngineIoErrorCampaign(Duration.ofMillis(600)));
        List<Campaign> server = List.of(new ServerKillCampaign(Duration.ofSeconds(3)), new HostileClientsCampaign(Duration.ofSeconds(3)));
        List<Campaign> cluster = List.of(new ClusterKillCampaign(Duration.ofSeconds(5), faults));
        return switch (target) {
            case "raftlog" -> raftlog;
            case "engine" -> engine;
            case "server" -> server;
            case "cluster" -> cluster;
            default -> {
                List<Campaign> one = new ArrayList<>();
                for (List<Campaign> group : List.of(raftlog, engine, server, cluster)) {
                    group.stream().filter(c -> c.name().equals(target)).forEach(one::add);
                }
                yield one;
            }
        };
    }

    /** The campaigns damage files on purpose: the engines' warnings about it would drown the progress lines. */
    private static void quietLogging() throws IOException {
        if (System.getProperty("java.util.logging.config.file") == null) {
            try (var in = StressMain.class.getResourceAsStream("/stress-logging.properties")) {
                if (in != null) {
                    LogManager.getLogManager().readConfiguration(in);
                }
            }
        }
    }

    private static List<ClusterFault> faults(String list) {
        try {
            return ClusterFault.parse(list);
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            return List.of();
        }
    }

    private static String require(String value, String option) {
        if (value == null) {
            usage(option + " needs a value");
        }
        return value;
    }

    private static void usage(String problem) {
        System.err.println("stress: " + problem);
        System.err.println("usage: bin/stress <target|campaign> [--cycles N] [--minutes M] [--seed S] "
                + "[--campaign NAME] [--work DIR] [--reproducers DIR] [--replay FILE] [--faults kill,partition]");
        System.err.println("targets and their campaigns: raftlog: raftlog-kill, raftlog-corruption, "
                + "raftlog-io-errors; engine: "
                + "engine-corruption, engine-kill, lifecycle, engine-io-errors; server: server-kill, hostile-clients; "
                + "cluster: cluster-kill");
        System.exit(64);
    }
}
