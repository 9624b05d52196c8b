package io.varve.stress.cluster;

import io.varve.server.command.KeySlot;
import io.varve.stress.cluster.ReplicaReader.NodeState;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** What the cluster campaign reads from the nodes' INFO, and how two nodes' copies differ. */
final class ClusterState {

    private ClusterState() {
    }

    /** The group of every slot, from a node's {@code cluster_group_<g>} lines ({@code slots=a-b+c-d}). */
    static int[] groupOfSlot(Map<String, String> info, int groups) throws IOException {
        if (info == null) {
            throw new IOException("the node does not answer INFO");
        }
        int[] group = new int[KeySlot.SLOTS];
        java.util.Arrays.fill(group, -1);
        for (int g = 0; g < groups; g++) {
            for (String range : fields(info.get("cluster_group_" + g)).get("slots").split("\\+")) {
                String[] ends = range.split("-");
                for (int s = Integer.parseInt(ends[0]); s <= Integer.parseInt(ends[1]); s++) {
                    group[s] = g;
                }
            }
        }
        for (int s = 0; s < group.length; s++) {
            if (group[s] < 0) {
                throw new IOException("slot " + s + " belongs to no group");
            }
        }
        return group;
    }

    /** Which groups the node leads now (none if it does not answer). */
    static boolean[] groupsLed(Map<String, String> info, int groups) {
        boolean[] led = new boolean[groups];
        for (int g = 0; info != null && g < groups; g++) {
            led[g] = "leader".equals(fields(info.get("cluster_group_" + g)).get("role"));
        }
        return led;
    }

    /**
     * Whether every group has a leader and this node leads its even share of them ({@code groups / nodes}), as
     * the leader balancer spreads them from the topology's preferences. Until then one node may lead every
     * group (whichever won the first elections), and killing it would leave no group to show the others going on.
     */
    static boolean leadsItsShare(Map<String, String> info, int groups, int nodes) {
        return info != null && "ok".equals(info.get("cluster_state"))
                && Integer.toString(groups / nodes).equals(info.get("cluster_groups_led"));
    }

    /** The keys INFO keyspace counts (every key the node holds, of every group), -1 if it does not answer. */
    static long keysHeld(Map<String, String> info) {
        if (info == null) {
            return -1;
        }
        String db0 = info.get("db0");
        return db0 == null ? 0 : Long.parseLong(fields(db0).get("keys"));
    }

    /**
     * Waits until, in every group, all nodes have applied the same index and it is the highest commit index
     * any of them reports: the workload has stopped, so then every replica holds everything committed.
     */
    static void awaitApplied(NodeProcesses nodes, int groups, Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        String last = "no INFO";
        while (System.nanoTime() < deadline) {
            last = lagging(nodes, groups);
            if (last == null) {
                return;
            }
            // Polling: followers learn the commit index from the leader's next append or heartbeat.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        throw new IOException("the replicas did not converge within " + limit.toSeconds() + " s: " + last);
    }

    private static String lagging(NodeProcesses nodes, int groups) {
        Map<String, String>[] infos = infos(nodes);
        for (int g = 0; g < groups; g++) {
            long commit = -1;
            Long applied = null;
            for (int i = 0; i < infos.length; i++) {
                if (infos[i] == null) {
                    return "node " + i + " does not answer INFO";
                }
                Map<String, String> line = fields(infos[i].get("cluster_group_" + g));
                commit = Math.max(commit, Long.parseLong(line.get("commit")));
                long a = Long.parseLong(line.get("applied"));
                if (applied != null && applied != a) {
                    return "group " + g + ": applied " + applied + " on one node, " + a + " on node " + i;
                }
                applied = a;
            }
            if (applied == null || applied != commit) {
                return "group " + g + ": applied " + applied + ", committed " + commit;
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String>[] infos(NodeProcesses nodes) {
        Map<String, String>[] infos = new Map[NodeProcesses.SIZE];
        for (int i = 0; i < infos.length; i++) {
            infos[i] = nodes.info(i);
        }
        return infos;
    }

    /** Null when both copies sum alike in every slot, else the first slot and key where they differ. */
    static String firstDifference(NodeState a, NodeState b) {
        if (a.slotSums().equals(b.slotSums())) {
            return null;
        }
        for (Map.Entry<String, List<String>> e : a.keys().entrySet()) {
            List<String> other = b.keys().get(e.getKey());
            if (!Objects.equals(e.getValue(), other)) {
                int slot = KeySlot.of(e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                return "differ in slot " + slot + ": " + e.getKey() + " is " + e.getValue() + " on the first, "
                        + other + " on the second";
            }
        }
        return "differ in their per-slot checksums";
    }

    /** {@code a=1,b=2} as a map (empty for null). */
    static Map<String, String> fields(String line) {
        Map<String, String> f = new HashMap<>();
        if (line != null) {
            for (String pair : line.split(",")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    f.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
        }
        return f;
    }
}
