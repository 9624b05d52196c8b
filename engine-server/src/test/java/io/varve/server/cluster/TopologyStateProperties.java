package io.varve.server.cluster;

import io.varve.server.command.KeySlot;
import io.varve.server.replica.RaftReplica;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The replicated topology's operations against a plain model (an owner per slot, members and a preferred
 * leader per group, the set of nodes, the replica move in progress): random sequences of slot moves, splits,
 * leader preferences, nodes met and forgotten, replica moves begun and finished, each slot move run through
 * both of its phases. Every state decodes to itself, each step raises the epoch by one (meeting a node
 * already there changes nothing), every slot keeps one owner, a second change is refused while one runs, a
 * slot change and a replica move never run together, slots move only between groups on the same nodes, and
 * a node is forgotten only while it holds no group's replica and takes no part in a move (the founders
 * start holding every group's, a node met none; moves change that).
 */
class TopologyStateProperties {

    private static final List<TopologyState.Node> NODES = List.of(
            new TopologyState.Node("127.0.0.1:17001", "127.0.0.1:7001"),
            new TopologyState.Node("127.0.0.1:17002", "127.0.0.1:7002"),
            new TopologyState.Node("127.0.0.1:17003", "127.0.0.1:7003"));

    /**
     * kind 0: move [a, a + b % 2000] to group c; 1: split group c; 2: prefer node b for group c; 3: meet node
     * b % 6 (the founders' addresses among them); 4: forget node b % 6; 5: begin moving group c's replica from
     * node b % 6 to node a % 6; 6: finish the replica move in progress.
     */
    record Step(int kind, int a, int b, int c) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        return Combinators.combine(Arbitraries.integers().between(0, 6),
                        Arbitraries.integers().between(0, KeySlot.SLOTS - 1),
                        Arbitraries.integers().between(0, 10_000), Arbitraries.integers().between(0, 64))
                .as(Step::new).list().ofMaxSize(30);
    }

    @Property(tries = 200)
    void operationsFollowTheModelAndEveryStateDecodesToItself(
            @ForAll @IntRange(min = 1, max = 8) int seedGroups, @ForAll("steps") List<Step> steps) {
        TopologyState state = TopologyState.seed(NODES, seedGroups);
        int[] owners = state.slotMap().owners();
        List<String> preferred = new ArrayList<>(state.groups().stream()
                .map(TopologyState.Group::preferredLeader).toList());
        java.util.TreeMap<String, String> nodes = new java.util.TreeMap<>();
        NODES.forEach(n -> nodes.put(n.raft(), n.client()));
        List<TreeSet<String>> members = new ArrayList<>();
        for (int g = 0; g < seedGroups; g++) {
            members.add(new TreeSet<>(nodes.keySet()));
        }
        TopologyState.ReplicaMove[] move = {null};
        for (Step step : steps) {
            int groups = preferred.size();
            long epoch = state.epoch();
            if (step.kind() == 5 || step.kind() == 6) {
                state = replicaMove(state, step, nodes, members, preferred, move);
                check(state, owners, preferred, members, move[0]);
                continue;
            }
            if (move[0] != null && (step.kind() == 0 || step.kind() == 1)) {
                TopologyState before = state;
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                        () -> before.beginMove(0, KeySlot.SLOTS - 1, step.c() % groups));
                assertEquals("ERR a replica move is in progress (epoch " + move[0].id() + "); retry once it completes",
                        refused.getMessage());
                assertThrows(IllegalArgumentException.class, () -> before.beginSplit(step.c() % groups));
                continue;
            }
            if (step.kind() == 3 || step.kind() == 4) {
                int n = step.b() % 6;
                String raft = "127.0.0.1:" + (17001 + n);
                TopologyState before = state;
                if (step.kind() == 3) {
                    state = state.withNode(raft, "127.0.0.1:" + (7001 + n));
                    assertEquals(nodes.containsKey(raft) ? epoch : epoch + 1, state.epoch());
                    nodes.put(raft, "127.0.0.1:" + (7001 + n));
                    TopologyState met = state;
                    assertThrows(IllegalArgumentException.class, () -> met.withNode(raft, "127.0.0.1:1"),
                            "one node, two client addresses");
                } else if (!nodes.containsKey(raft) || held(members, raft).length() > 0 || (move[0] != null
                        && (move[0].from().equals(raft) || move[0].to().equals(raft)))) {
                    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                            () -> before.withoutNode(raft));
                    String id = RaftReplica.nodeId(raft);
                    assertEquals(!nodes.containsKey(raft) ? "ERR Unknown node " + id
                                    : move[0] != null && (move[0].from().equals(raft) || move[0].to().equals(raft))
                                    ? "ERR node " + id + " takes part in the replica move in progress (epoch "
                                    + move[0].id() + "); retry once it completes"
                                    : "ERR node " + id + " still holds replicas of groups " + held(members, raft)
                                    + "; move them to other nodes first",
                            refused.getMessage());
                } else {
                    state = state.withoutNode(raft);
                    nodes.remove(raft);
                    assertEquals(epoch + 1, state.epoch());
                }
                assertEquals(List.copyOf(nodes.keySet()),
                        state.nodes().stream().map(TopologyState.Node::raft).toList());
                check(state, owners, preferred, members, move[0]);
                continue;
            }
            TopologyState begun;
            int target;
            BitSet moving = new BitSet(KeySlot.SLOTS);
            if (step.kind() == 2) {
                int g = step.c() % groups;
                String node = NODES.get(step.b() % NODES.size()).raft();
                if (!members.get(g).contains(node)) {
                    TopologyState before = state;
                    assertEquals("ERR node " + node + " is not a member of group " + g, assertThrows(
                            IllegalArgumentException.class, () -> before.withPreferredLeader(g, node)).getMessage());
                    continue;
                }
                state = state.withPreferredLeader(g, node);
                preferred.set(g, node);
                assertEquals(epoch + 1, state.epoch());
                check(state, owners, preferred, members, move[0]);
                continue;
            }
            if (step.kind() == 0) {
                target = step.c() % groups;
                int last = Math.min(KeySlot.SLOTS - 1, step.a() + step.b() % 2000);
                for (int s = step.a(); s <= last; s++) {
                    if (owners[s] != target) {
                        moving.set(s);
                    }
                }
                TreeSet<Integer> sources = new TreeSet<>();
                moving.stream().forEach(s2 -> sources.add(owners[s2]));
                Integer elsewhere = sources.stream().filter(g -> !members.get(g).equals(members.get(target)))
                        .findFirst().orElse(null);
                if (moving.isEmpty() || elsewhere != null) {
                    TopologyState before = state;
                    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                            () -> before.beginMove(step.a(), last, target));
                    if (elsewhere != null) {
                        assertEquals("ERR groups " + elsewhere + " and " + target + " have different members; slots"
                                + " move only between groups on the same nodes", refused.getMessage());
                    }
                    continue;
                }
                begun = state.beginMove(step.a(), last, target);
            } else {
                int g = step.c() % groups;
                int own = 0;
                for (int owner : owners) {
                    own += owner == g ? 1 : 0;
                }
                if (own < 2) {
                    TopologyState before = state;
                    assertThrows(IllegalArgumentException.class, () -> before.beginSplit(g));
                    continue;
                }
                int seen = 0;
                for (int s = 0; s < KeySlot.SLOTS; s++) {
                    if (owners[s] == g && seen++ >= own / 2) {
                        moving.set(s);
                    }
                }
                begun = state.beginSplit(g);
                target = groups;
                preferred.add(begun.groups().getLast().preferredLeader());
                members.add(new TreeSet<>(members.get(g)));
            }
            assertEquals(epoch + 1, begun.epoch());
            assertEquals(moving, begun.change().slots());
            assertEquals(target, begun.change().target());
            check(begun, owners, preferred, members, null); // owners unchanged while fencing
            TopologyState during = begun;
            assertThrows(IllegalArgumentException.class, () -> during.beginMove(0, 0, 0));
            IllegalArgumentException noMove = assertThrows(IllegalArgumentException.class,
                    () -> during.beginReplicaMove(0, NODES.getFirst().raft(), "127.0.0.1:17006"));
            assertEquals("ERR a slot change is in progress (epoch " + (epoch + 1) + "); retry once it completes",
                    noMove.getMessage());
            TopologyState fenced = begun.fenced();
            for (int s = moving.nextSetBit(0); s >= 0; s = moving.nextSetBit(s + 1)) {
                owners[s] = target;
            }
            assertEquals(epoch + 2, fenced.epoch());
            check(fenced, owners, preferred, members, null);
            state = fenced.handedOff();
            assertEquals(epoch + 3, state.epoch());
            assertNull(state.change());
            check(state, owners, preferred, members, null);
        }
    }

    /** Steps 5 and 6: a replica move begun (or refused, with the words the model expects) and finished. */
    private static TopologyState replicaMove(TopologyState state, Step step, java.util.TreeMap<String, String> nodes,
                                             List<TreeSet<String>> members, List<String> preferred,
                                             TopologyState.ReplicaMove[] move) {
        long epoch = state.epoch();
        TopologyState before = state;
        if (step.kind() == 6) {
            if (move[0] == null) {
                assertEquals("ERR no replica move of epoch " + epoch + " is in progress", assertThrows(
                        IllegalArgumentException.class, () -> before.replicaMoved(epoch)).getMessage());
                return state;
            }
            TopologyState.ReplicaMove done = move[0];
            TopologyState after = state.replicaMoved(done.id());
            TreeSet<String> list = members.get(done.group());
            list.remove(done.from());
            list.add(done.to());
            if (preferred.get(done.group()).equals(done.from())) {
                preferred.set(done.group(), list.stream().min(java.util.Comparator.comparingLong(
                                (String m) -> preferred.stream().filter(m::equals).count()).thenComparing(m -> m))
                        .orElseThrow());
            }
            move[0] = null;
            assertEquals(epoch + 1, after.epoch());
            assertNull(after.move());
            return after;
        }
        int g = step.c() % preferred.size();
        String from = "127.0.0.1:" + (17001 + step.b() % 6);
        String to = "127.0.0.1:" + (17001 + step.a() % 6);
        String refusal = move[0] != null ? "ERR a replica move is in progress (epoch " + move[0].id()
                + "); retry once it completes"
                : !nodes.containsKey(from) ? "ERR Unknown node " + RaftReplica.nodeId(from)
                : !members.get(g).contains(from) ? "ERR node " + RaftReplica.nodeId(from) + " is not a member of group "
                + g
                : !nodes.containsKey(to) ? "ERR Unknown node " + RaftReplica.nodeId(to)
                : members.get(g).contains(to) ? "ERR node " + RaftReplica.nodeId(to) + " is already a member of group "
                + g
                : null;
        if (refusal != null) {
            assertEquals(refusal, assertThrows(IllegalArgumentException.class,
                    () -> before.beginReplicaMove(g, from, to)).getMessage());
            return state;
        }
        TopologyState after = state.beginReplicaMove(g, from, to);
        move[0] = new TopologyState.ReplicaMove(epoch + 1, g, from, to);
        if (preferred.get(g).equals(from)) {
            preferred.set(g, to);
        }
        assertEquals(epoch + 1, after.epoch());
        assertEquals(move[0], after.move());
        TopologyState during = after;
        assertThrows(IllegalArgumentException.class, () -> during.beginReplicaMove(g, to, from));
        return after;
    }

    /** The groups {@code raft} is a member of in the model, comma-separated. */
    private static String held(List<TreeSet<String>> members, String raft) {
        List<String> held = new ArrayList<>();
        for (int g = 0; g < members.size(); g++) {
            if (members.get(g).contains(raft)) {
                held.add(Integer.toString(g));
            }
        }
        return String.join(",", held);
    }

    private static void check(TopologyState state, int[] owners, List<String> preferred, List<TreeSet<String>> members,
                              TopologyState.ReplicaMove move) {
        assertArrayEquals(owners, state.slotMap().owners());
        assertEquals(preferred, state.groups().stream().map(TopologyState.Group::preferredLeader).toList());
        assertEquals(members.stream().map(List::copyOf).toList(),
                state.groups().stream().map(g -> List.copyOf(new TreeSet<>(g.members()))).toList());
        assertEquals(move, state.move());
        TopologyState decoded = TopologyState.decode(state.encode());
        assertEquals(state.epoch(), decoded.epoch());
        assertArrayEquals(state.slotMap().owners(), decoded.slotMap().owners());
        assertEquals(state.groups(), decoded.groups());
        assertEquals(state.nodes(), decoded.nodes());
        assertEquals(state.change(), decoded.change());
        assertEquals(state.move(), decoded.move());
        assertEquals(state.seedGroups(), decoded.seedGroups());
    }
}
