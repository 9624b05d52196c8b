package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.replication.GroupShare;
import io.varve.replication.ReplicatedBatch;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slot gates of three groups under random slot moves, on two nodes: node 1 applies every control entry; node 2
 * installs every group's snapshot taken on node 1 part-way, then applies the control entries after it. At the
 * end each of node 2's gates knows what node 1's knows (accepted slots, last change, slots handed away and
 * taken over), has stored it, and no slot is accepted by two groups of a node. Every snapshot's ranges are
 * ascending and disjoint, and cover the group's accepted slots.
 */
class SlotGateSnapshotProperties {

    private static final int GROUPS = 3;

    record Move(int first, int length, int target) {
    }

    @Property(tries = 40)
    void aNodeThatInstalledSnapshotsKnowsWhatTheNodeThatAppliedTheLogKnows(
            @ForAll("moves") @Size(max = 10) List<Move> moves, @ForAll @IntRange(max = 10) int cut) throws IOException {
        Path dir = Files.createTempDirectory("slot-gate-snapshots");
        try (Db db1 = Db.open(dir.resolve("node1"), Options.defaults());
             Db db2 = Db.open(dir.resolve("node2"), Options.defaults())) {
            Node node1 = new Node(db1);
            Node node2 = new Node(db2);
            List<GroupShare.Saved> saved = null;
            long change = 0;
            List<List<Entry>> log = new ArrayList<>();
            for (int m = 0; m <= moves.size(); m++) {
                if (m == Math.min(cut, moves.size())) {
                    saved = new ArrayList<>();
                    for (SlotGate gate : node1.gates) {
                        GroupShare.Saved s = gate.save();
                        checkRanges(s.ranges(), gate.accepted());
                        saved.add(s);
                    }
                }
                if (m == moves.size()) {
                    break;
                }
                List<Entry> entries = entriesOf(moves.get(m), ++change, node1);
                entries.forEach(node1::apply);
                node1.checkNoSlotAcceptedTwice();
                log.add(entries);
            }
            int from = Math.min(cut, moves.size());
            List<List<GroupShare.InstallStep>> installs = new ArrayList<>();
            for (int g = 0; g < GROUPS; g++) {
                installs.add(node2.gates[g].install(saved.get(g)));
            }
            for (int step = 0; step < 2; step++) {
                for (List<GroupShare.InstallStep> steps : installs) {
                    steps.get(step).before().run();
                    steps.get(step).after().run();
                    node2.checkNoSlotAcceptedTwice();
                }
            }
            for (List<Entry> entries : log.subList(from, log.size())) {
                entries.forEach(node2::apply);
                node2.checkNoSlotAcceptedTwice();
            }
            for (int g = 0; g < GROUPS; g++) {
                assertEquals(node1.gates[g].state(), node2.gates[g].state(), "group " + g);
                assertEquals(node1.gates[g].state(),
                        SlotGate.open(db2, g, SlotGate.seed(g, GROUPS), new SlotGates()).state(), "stored " + g);
            }
        } finally {
            deleteTree(dir);
        }
    }

    /** A move as the reconciler runs it: each group holding some of the slots fences them, then the target accepts. */
    private static List<Entry> entriesOf(Move move, long change, Node node) {
        BitSet slots = new BitSet();
        slots.set(move.first(), Math.min(move.first() + move.length(), 16384));
        List<Integer> sources = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            BitSet held = node.gates[g].accepted();
            if (g != move.target() && held.intersects(slots)) {
                sources.add(g);
            }
        }
        List<Entry> entries = new ArrayList<>();
        for (int source : sources) {
            entries.add(new Entry(source, SlotGate.fence(source, change, slots)));
        }
        entries.add(new Entry(move.target(), SlotGate.accept(move.target(), change, slots, sources)));
        return entries;
    }

    private static void checkRanges(List<Db.Range> ranges, BitSet accepted) {
        for (int i = 1; i < ranges.size(); i++) {
            assertTrue(Arrays.compareUnsigned(ranges.get(i - 1).limit(), ranges.get(i).start()) <= 0,
                    "ascending and disjoint");
        }
        for (Db.Range range : GroupKeyRanges.of(accepted)) {
            assertTrue(ranges.stream().anyMatch(r -> Arrays.equals(r.start(), range.start())
                    && Arrays.equals(r.limit(), range.limit())), "the accepted slots' ranges are carried");
        }
    }

    record Entry(int group, ReplicatedBatch batch) {
    }

    /** One node's gates, storing each control entry's result as the state machine would. */
    private static final class Node {
        final Db db;
        final SlotGate[] gates = new SlotGate[GROUPS];
        final long[] index = new long[GROUPS];

        Node(Db db) {
            this.db = db;
            SlotGates all = new SlotGates();
            for (int g = 0; g < GROUPS; g++) {
                gates[g] = SlotGate.open(db, g, SlotGate.seed(g, GROUPS), all);
            }
        }

        void apply(Entry entry) {
            List<ReplicatedBatch.Op> ops = gates[entry.group()].admit(++index[entry.group()], entry.batch().ops());
            if (ops != null) {
                ops.forEach(op -> db.put(op.key(), op.value()));
            }
        }

        void checkNoSlotAcceptedTwice() {
            BitSet seen = new BitSet();
            for (SlotGate gate : gates) {
                BitSet accepted = gate.accepted();
                assertTrue(!accepted.intersects(seen), "a slot accepted by two groups");
                seen.or(accepted);
            }
        }
    }

    @Provide
    Arbitrary<List<Move>> moves() {
        Arbitrary<Move> move = Combinators.combine(Arbitraries.integers().between(0, 16383),
                Arbitraries.integers().between(1, 6000), Arbitraries.integers().between(0, GROUPS - 1))
                .as(Move::new);
        return move.list();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
