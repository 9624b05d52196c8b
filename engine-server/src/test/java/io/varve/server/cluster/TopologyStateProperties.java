package io.varve.server.cluster;

import io.varve.server.command.KeySlot;
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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The replicated topology's operations against a plain model (an owner per slot, a preferred leader per
 * group, the set of nodes): random sequences of slot moves, splits, leader preferences, nodes met and nodes
 * forgotten, each move run through both of its phases. Every state decodes to itself, each step raises the
 * epoch by one (meeting a node already there changes nothing), every slot keeps one owner, a second change is
 * refused while one runs, and a node is forgotten only while it holds no group's replica (the founders hold
 * every group's, a node met holds none).
 */
class TopologyStateProperties {

    private static final List<TopologyState.Node> NODES = List.of(
            new TopologyState.Node("127.0.0.1:17001", "127.0.0.1:7001"),
            new TopologyState.Node("127.0.0.1:17002", "127.0.0.1:7002"),
            new TopologyState.Node("127.0.0.1:17003", "127.0.0.1:7003"));

    /**
     * kind 0: move [a, a + b % 2000] to group c; 1: split group c; 2: prefer node b for group c; 3: meet node
     * b % 6 (the founders' addresses among them); 4: forget node b % 6.
     */
    record Step(int kind, int a, int b, int c) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        return Combinators.combine(Arbitraries.integers().between(0, 4),
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
        for (Step step : steps) {
            int groups = preferred.size();
            long epoch = state.epoch();
            if (step.kind() == 3 || step.kind() == 4) {
                int n = step.b() % 6;
                String raft = "127.0.0.1:" + (17001 + n);
                boolean founder = n < NODES.size();
                TopologyState before = state;
                if (step.kind() == 3) {
                    state = state.withNode(raft, "127.0.0.1:" + (7001 + n));
                    assertEquals(nodes.containsKey(raft) ? epoch : epoch + 1, state.epoch());
                    nodes.put(raft, "127.0.0.1:" + (7001 + n));
                    TopologyState met = state;
                    assertThrows(IllegalArgumentException.class, () -> met.withNode(raft, "127.0.0.1:1"),
                            "one node, two client addresses");
                } else if (founder || !nodes.containsKey(raft)) {
                    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                            () -> before.withoutNode(raft));
                    assertEquals(founder ? "ERR node " + io.varve.server.replica.RaftReplica.nodeId(raft)
                                    + " still holds replicas of groups " + java.util.stream.IntStream.range(0, groups)
                                    .mapToObj(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                                    + "; move them to other nodes first"
                                    : "ERR Unknown node " + io.varve.server.replica.RaftReplica.nodeId(raft),
                            refused.getMessage());
                } else {
                    state = state.withoutNode(raft);
                    nodes.remove(raft);
                    assertEquals(epoch + 1, state.epoch());
                }
                assertEquals(List.copyOf(nodes.keySet()), state.nodes().stream().map(TopologyState.Node::raft).toList());
                check(state, owners, preferred);
                continue;
            }
            TopologyState begun;
            int target;
            BitSet moving = new BitSet(KeySlot.SLOTS);
            if (step.kind() == 2) {
                int g = step.c() % groups;
                String node = NODES.get(step.b() % NODES.size()).raft();
                state = state.withPreferredLeader(g, node);
                preferred.set(g, node);
                assertEquals(epoch + 1, state.epoch());
                check(state, owners, preferred);
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
                if (moving.isEmpty()) {
                    TopologyState before = state;
                    assertThrows(IllegalArgumentException.class, () -> before.beginMove(step.a(), last, target));
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
            }
            assertEquals(epoch + 1, begun.epoch());
            assertEquals(moving, begun.change().slots());
            assertEquals(target, begun.change().target());
            check(begun, owners, preferred); // owners unchanged while fencing
            TopologyState during = begun;
            assertThrows(IllegalArgumentException.class, () -> during.beginMove(0, 0, 0));
            TopologyState fenced = begun.fenced();
            for (int s = moving.nextSetBit(0); s >= 0; s = moving.nextSetBit(s + 1)) {
                owners[s] = target;
            }
            assertEquals(epoch + 2, fenced.epoch());
            check(fenced, owners, preferred);
            state = fenced.handedOff();
            assertEquals(epoch + 3, state.epoch());
            assertNull(state.change());
            check(state, owners, preferred);
        }
    }

    private static void check(TopologyState state, int[] owners, List<String> preferred) {
        assertArrayEquals(owners, state.slotMap().owners());
        assertEquals(preferred, state.groups().stream().map(TopologyState.Group::preferredLeader).toList());
        TopologyState decoded = TopologyState.decode(state.encode());
        assertEquals(state.epoch(), decoded.epoch());
        assertArrayEquals(state.slotMap().owners(), decoded.slotMap().owners());
        assertEquals(state.groups(), decoded.groups());
        assertEquals(state.nodes(), decoded.nodes());
        assertEquals(state.change(), decoded.change());
        assertEquals(state.seedGroups(), decoded.seedGroups());
    }
}
