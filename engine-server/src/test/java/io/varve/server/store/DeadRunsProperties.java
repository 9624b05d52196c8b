package io.varve.server.store;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link DeadRuns} against a set of live members: ranges are declared dead only after their members were
 * removed, members are re-added at random, and no run may ever claim a live member; the next run always
 * starts after the point asked about, and a pop's starting point is never inside a run. The universe of
 * members (bytes 0, 'a', 'b', up to three long) includes each member's successor, so adjacency is exercised.
 */
class DeadRunsProperties {

    private static final List<byte[]> UNIVERSE = universe();

    @Property(tries = 300)
    void runsNeverClaimALiveMember(@ForAll("programs") List<int[]> program) {
        TreeSet<byte[]> live = new TreeSet<>(Arrays::compareUnsigned);
        live.addAll(UNIVERSE);
        DeadRuns runs = new DeadRuns(UNIVERSE.getFirst(), UNIVERSE.getLast());
        Random random = new Random(program.size());
        for (int[] op : program) {
            byte[] a = UNIVERSE.get(op[1]);
            if (op[0] == 0) {
                byte[] to = op[2] == UNIVERSE.size() ? null : UNIVERSE.get(op[2]);
                if (to != null && Arrays.compareUnsigned(a, to) >= 0) {
                    continue;
                }
                (to == null ? live.tailSet(a, true) : live.subSet(a, true, to, false)).clear();
                runs.markDead(a, to, op[2] % 3);
            } else if (op[0] == 1) {
                runs.reopen(a);
                live.add(a);
            } else {
                DeadRuns copy = runs.copy();
                byte[] start = copy.start(random, true);
                if (start != null) {
                    assertArrayEquals(start, copy.skip(start), "a pop starts inside a run");
                }
            }
            for (byte[] member : live) {
                byte[] skipped = runs.skip(member);
                assertNotNull(skipped, "live member " + Arrays.toString(member) + " claimed to the end");
                assertArrayEquals(member, skipped, "live member " + Arrays.toString(member) + " claimed");
                byte[] next = runs.nextStart(member);
                assertTrue(next == null || Arrays.compareUnsigned(next, member) > 0);
            }
            assertTrue(runs.runCount() <= DeadRuns.MAX_RUNS);
        }
    }

    @Provide
    Arbitrary<List<int[]>> programs() {
        Arbitrary<int[]> op = Arbitraries.integers().between(0, 2).flatMap(kind -> Arbitraries.integers()
                .between(0, UNIVERSE.size() - 1).flatMap(a -> Arbitraries.integers().between(0, UNIVERSE.size())
                        .map(b -> new int[] {kind, a, b})));
        return op.list().ofMaxSize(60);
    }

    private static List<byte[]> universe() {
        byte[] alphabet = {0, 'a', 'b'};
        List<byte[]> out = new ArrayList<>();
        out.add(new byte[0]);
        List<byte[]> previous = List.of(new byte[0]);
        for (int length = 1; length <= 3; length++) {
            List<byte[]> next = new ArrayList<>();
            for (byte[] p : previous) {
                for (byte b : alphabet) {
                    byte[] m = Arrays.copyOf(p, length);
                    m[length - 1] = b;
                    next.add(m);
                }
            }
            out.addAll(next);
            previous = next;
        }
        out.sort(Arrays::compareUnsigned);
        return out;
    }
}
