package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;

/** Compares every read the engine offers with the reference model. */
final class EngineChecks {

    /**
     * Closes an engine whose machine just crashed, before the directory is reopened. The crash retired its file
     * handles, so closing writes nothing (its sync fails, as a dead machine's would) and only frees what the
     * engine holds in this process.
     */
    static void closeCrashed(RaftLogEngine engine) {
        try {
            engine.close();
        } catch (IOException | RuntimeException deadMachine) {
            // the crashed storage refuses the close's sync; the engine's handles are released all the same
        }
    }
    private EngineChecks() {
    }

    static void assertMatches(RaftLogEngine engine, RefModel model, List<byte[]> keys, Random random)
            throws Exception {
        assertEquals(List.copyOf(model.groups.keySet()), engine.groups(), "groups");
        for (var e : model.groups.entrySet()) {
            long group = e.getKey();
            RefModel.Group g = e.getValue();
            for (byte[] k : keys) {
                byte[] expected = g.state.get(RefModel.key(k));
                byte[] actual = engine.get(group, k);
                if (expected == null) {
                    assertNull(actual, "group " + group + " key " + RefModel.key(k));
                } else {
                    assertArrayEquals(expected, actual, "group " + group + " key " + RefModel.key(k));
                }
            }
            if (g.entries.isEmpty()) {
                assertEquals(OptionalLong.empty(), engine.firstIndex(group), "group " + group + " first");
                assertEquals(OptionalLong.empty(), engine.lastIndex(group), "group " + group + " last");
                assertNull(engine.entry(group, 1));
                continue;
            }
            long first = g.entries.firstKey();
            long last = g.entries.lastKey();
            assertEquals(OptionalLong.of(first), engine.firstIndex(group), "group " + group + " first");
            assertEquals(OptionalLong.of(last), engine.lastIndex(group), "group " + group + " last");
            List<byte[]> all = engine.entries(group, first, last + 1, Long.MAX_VALUE);
            assertEquals(last - first + 1, all.size());
            for (int i = 0; i < all.size(); i++) {
                assertArrayEquals(g.entries.get(first + i), all.get(i), "group " + group + " index " + (first + i));
            }
            assertNull(engine.entry(group, last + 1));
            if (first > 0) {
                assertNull(engine.entry(group, first - 1));
                assertThrows(IndexOutOfBoundsException.class, () -> engine.entries(group, first - 1, last + 1, 1));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> engine.entries(group, first, last + 2, 1));
            // A sub-range with a byte budget: a prefix, at least one entry, within budget unless only one.
            long from = first + random.nextLong(last - first + 1);
            long to = from + 1 + random.nextLong(last - from + 1);
            long budget = random.nextInt(2000);
            List<byte[]> some = engine.entries(group, from, to, budget);
            assertTrue(!some.isEmpty() && some.size() <= to - from);
            long total = 0;
            for (int i = 0; i < some.size(); i++) {
                assertArrayEquals(g.entries.get(from + i), some.get(i));
                total += some.get(i).length;
            }
            assertTrue(some.size() == 1 || total <= budget, "over budget");
            if (some.size() < to - from) {
                assertTrue(total + g.entries.get(from + some.size()).length > budget, "stopped early");
            }
            assertArrayEquals(g.entries.get(from), engine.entry(group, from));
        }
    }
}
