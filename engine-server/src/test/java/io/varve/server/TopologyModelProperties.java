package io.varve.server;

import io.varve.server.command.KeySlot;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replicated topology of three in-JVM nodes against a model of the slot map: random sequences of slot
 * moves, splits, leader preferences and node restarts, each operation sent to a random node (which hands it
 * to the metadata group's leader). While an operation runs, every node is watched: on no node do two groups
 * accept the same slot at once, and no node's epoch goes down. Once settled, every node serves the model's
 * map at the model's epoch, each group's gate accepts exactly its ranges, each group is led by its preferred
 * node, and CLUSTER SHARDS lists the model's ranges.
 */
class TopologyModelProperties {

    private static final int SEED_GROUPS = 2;

    /** kind 0: move slots [a, a + b % 3000] to group c; 1: split group c; 2: prefer node b for group c; 3: restart node b. */
    record Action(int kind, int a, int b, int c) {
    }

    @Provide
    Arbitrary<List<Action>> actions() {
        return Combinators.combine(Arbitraries.integers().between(0, 3),
                        Arbitraries.integers().between(0, KeySlot.SLOTS - 1),
                        Arbitraries.integers().between(0, 100_000), Arbitraries.integers().between(0, 16))
                .as(Action::new).list().ofMinSize(1).ofMaxSize(5);
    }

    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void theTopologyFollowsTheModelAndNoSlotIsEverAcceptedByTwoGroups(@ForAll("actions") List<Action> actions)
            throws Exception {
        Path dir = Files.createTempDirectory("topology-model");
        try (ClusterNodes cluster = ClusterNodes.start(dir, SEED_GROUPS)) {
            Model model = new Model(cluster);
            long[] epochs = new long[ClusterNodes.SIZE];
            ReplicatedCluster.await(() -> model.settled(cluster), "the seeded topology");
            for (Action action : actions) {
                int node = action.b() % ClusterNodes.SIZE;
                switch (action.kind()) {
                    case 0 -> {
                        int first = action.a();
                        int last = Math.min(KeySlot.SLOTS - 1, first + action.b() % 3000);
                        int target = action.c() % model.groups();
                        boolean changes = model.move(first, last, target);
                        Object reply = watching(cluster, epochs, () -> call(cluster, action.c(),
                                "VARVE", "CLUSTER", "MOVESLOTS", "" + first, "" + last, "" + target));
                        assertEquals(changes, "OK".equals(reply), "MOVESLOTS " + first + " " + last + " " + target
                                + ": " + reply);
                    }
                    case 1 -> {
                        int group = action.c() % model.groups();
                        boolean changes = model.split(group);
                        Object reply = watching(cluster, epochs, () -> call(cluster, action.a(),
                                "VARVE", "CLUSTER", "SPLIT", "" + group));
                        assertEquals(changes, "OK".equals(reply), "SPLIT " + group + ": " + reply);
                    }
                    case 2 -> {
                        int group = action.c() % model.groups();
                        model.prefer(group, node);
                        assertEquals("OK", watching(cluster, epochs, () -> call(cluster, action.a(),
                                "VARVE", "CLUSTER", "LEADER", "" + group, "127.0.0.1:" + cluster.clientPorts[node])));
                    }
                    default -> {
                        cluster.stop(node);
                        cluster.start(node);
                    }
                }
                ReplicatedCluster.await(() -> {
                    observe(cluster, epochs);
                    return model.settled(cluster);
                }, "the topology of the model after " + action);
                assertEquals(model.shards(), shards(cluster, action.a() % ClusterNodes.SIZE));
            }
        } finally {
            deleteTree(dir);
        }
    }

    /** The slot map, the preferred leaders and the epoch the cluster must reach. */
    private static final class Model {
        final int[] owners = new int[KeySlot.SLOTS];
        final List<Integer> preferred = new ArrayList<>();
        final List<Integer> byRaft;
        long epoch = 1;

        Model(ClusterNodes cluster) {
            byRaft = byRaftAddress(cluster);
            int base = KeySlot.SLOTS / SEED_GROUPS;
            int extra = KeySlot.SLOTS % SEED_GROUPS;
            int slot = 0;
            for (int g = 0; g < SEED_GROUPS; g++) {
                int size = base + (g < extra ? 1 : 0);
                java.util.Arrays.fill(owners, slot, slot + size, g);
                slot += size;
                preferred.add(byRaft.get(g % ClusterNodes.SIZE));
            }
        }

        int groups() {
            return preferred.size();
        }

        boolean move(int first, int last, int target) {
            boolean changes = false;
            for (int s = first; s <= last; s++) {
                changes |= owners[s] != target;
                owners[s] = target;
            }
            epoch += changes ? 3 : 0;
            return changes;
        }

        boolean split(int group) {
            BitSet own = slots(group);
            if (own.cardinality() < 2) {
                return false;
            }
            int keep = own.cardinality() / 2;
            int seen = 0;
            for (int s = own.nextSetBit(0); s >= 0; s = own.nextSetBit(s + 1)) {
                if (seen++ >= keep) {
                    owners[s] = groups();
                }
            }
            // the new group prefers the node preferred by the fewest groups, the lowest Raft address on a tie
            int best = 0;
            long fewest = Long.MAX_VALUE;
            for (int node : byRaft) {
                long count = preferred.stream().filter(p -> p == node).count();
                if (count < fewest) {
                    fewest = count;
                    best = node;
                }
            }
            preferred.add(best);
            epoch += 3;
            return true;
        }

        void prefer(int group, int node) {
            preferred.set(group, node);
            epoch += 1;
        }

        BitSet slots(int group) {
            BitSet slots = new BitSet(KeySlot.SLOTS);
            for (int s = 0; s < KeySlot.SLOTS; s++) {
                if (owners[s] == group) {
                    slots.set(s);
                }
            }
            return slots;
        }

        /** Every non-empty group's ranges, as CLUSTER SHARDS lists them. */
        Set<String> shards() {
            Set<String> shards = new HashSet<>();
            for (int g = 0; g < groups(); g++) {
                String ranges = ranges(slots(g));
                if (!ranges.isEmpty()) {
                    shards.add(ranges);
                }
            }
            return shards;
        }

        boolean settled(ClusterNodes cluster) {
            for (int i = 0; i < ClusterNodes.SIZE; i++) {
                Map<String, Object> info = cluster.replication(i);
                if (((Number) info.get("cluster_epoch")).longValue() != epoch
                        || !"none".equals(info.get("cluster_slot_change"))
                        || "".equals(info.get("cluster_metadata_leader"))) {
                    return false;
                }
                for (int g = 0; g < groups(); g++) {
                    String line = String.valueOf(info.get("raft_group_" + g));
                    String ranges = ranges(slots(g));
                    String leader = "127.0.0.1:" + cluster.clientPorts[preferred.get(g)];
                    if (!line.contains(",slots=" + ranges + ",") || !line.contains(",accepts=" + ranges + ",")
                            || !line.contains(",leader=" + leader + ",")) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    /** Node indexes ordered by Raft address: group g of the seed prefers the g-th of them. */
    private static List<Integer> byRaftAddress(ClusterNodes cluster) {
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2));
        order.sort(Comparator.comparing(i -> "127.0.0.1:" + cluster.raftPorts[i]));
        return order;
    }

    /** Runs an operation while checking every node, again and again, until it answers. */
    private static Object watching(ClusterNodes cluster, long[] epochs, java.util.concurrent.Callable<Object> call)
            throws Exception {
        CompletableFuture<Object> reply = CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        while (!reply.isDone()) {
            observe(cluster, epochs);
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000); // a polling interval, not a wait for an event
        }
        observe(cluster, epochs);
        return reply.get(1, TimeUnit.SECONDS);
    }

    /** On every node: no slot accepted by two groups, and the epoch never below the last one seen there. */
    private static void observe(ClusterNodes cluster, long[] epochs) {
        for (int i = 0; i < ClusterNodes.SIZE; i++) {
            if (!cluster.running(i)) {
                continue;
            }
            Map<String, Object> info = cluster.replication(i);
            long epoch = ((Number) info.get("cluster_epoch")).longValue();
            assertTrue(epoch >= epochs[i], "node " + i + " went from epoch " + epochs[i] + " to " + epoch);
            epochs[i] = epoch;
            BitSet seen = new BitSet(KeySlot.SLOTS);
            Map<Integer, BitSet> accepted = new HashMap<>();
            for (int g = 0; info.containsKey("raft_group_" + g); g++) {
                String line = String.valueOf(info.get("raft_group_" + g));
                BitSet slots = parse(line, "accepts=");
                assertFalse(seen.intersects(slots), "node " + i + ": group " + g + " accepts slots another "
                        + "group accepts: " + accepted + " and " + line);
                seen.or(slots);
                accepted.put(g, slots);
            }
        }
    }

    private static BitSet parse(String line, String field) {
        BitSet slots = new BitSet(KeySlot.SLOTS);
        int at = line.indexOf("," + field);
        if (at < 0) {
            return slots; // a group still opening
        }
        String value = line.substring(at + field.length() + 1, line.indexOf(',', at + 1));
        for (String range : value.split("\\+")) {
            if (!range.isEmpty()) {
                String[] ends = range.split("-");
                slots.set(Integer.parseInt(ends[0]), Integer.parseInt(ends[1]) + 1);
            }
        }
        return slots;
    }

    static String ranges(BitSet slots) {
        StringBuilder out = new StringBuilder();
        int s = slots.nextSetBit(0);
        while (s >= 0) {
            int end = slots.nextClearBit(s);
            out.append(out.isEmpty() ? "" : "+").append(s).append('-').append(end - 1);
            s = slots.nextSetBit(end);
        }
        return out.toString();
    }

    /** CLUSTER SHARDS of node {@code i}: each shard's ranges. */
    @SuppressWarnings("unchecked")
    private static Set<String> shards(ClusterNodes cluster, int i) throws IOException {
        try (RespClient client = RespClient.connect(cluster.clientPorts[i])) {
            Set<String> shards = new HashSet<>();
            for (Object shard : (List<Object>) client.call("CLUSTER", "SHARDS")) {
                List<Object> fields = (List<Object>) shard;
                List<Object> bounds = (List<Object>) fields.get(fields.indexOf("slots") + 1);
                BitSet slots = new BitSet(KeySlot.SLOTS);
                for (int b = 0; b < bounds.size(); b += 2) {
                    slots.set(((Long) bounds.get(b)).intValue(), ((Long) bounds.get(b + 1)).intValue() + 1);
                }
                if (!slots.isEmpty()) {
                    shards.add(ranges(slots));
                }
            }
            return shards;
        }
    }

    /**
     * One command on node {@code which % 3}, again while it answers TRYAGAIN (an election in the metadata
     * group; the operations answer it only before proposing anything): its reply, an error's text as a String.
     */
    private static Object call(ClusterNodes cluster, int which, String... args) throws Exception {
        try (RespClient client = RespClient.connect(cluster.clientPorts[which % ClusterNodes.SIZE])) {
            return ReplicatedCluster.retrying(() -> {
                try {
                    Object reply = client.call(args);
                    if (reply instanceof RespClient.Err err && err.text().startsWith("TRYAGAIN")) {
                        throw new IllegalStateException(err.text());
                    }
                    return reply instanceof RespClient.Err err ? err.text() : reply;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
