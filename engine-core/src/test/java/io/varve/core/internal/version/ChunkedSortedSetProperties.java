package io.varve.core.internal.version;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The chunked set against a TreeSet, through random batches of removals and additions, with tiny chunks. */
class ChunkedSortedSetProperties {

    /** One edit: removal picks (positions modulo the size when applied) and elements to add. */
    record Batch(List<Integer> removePicks, List<Integer> additions) {
    }

    @Property(tries = 300)
    void agreesWithTreeSetAndOldVersionsStayIntact(@ForAll("batches") List<Batch> batches,
                                                   @ForAll @IntRange(min = 2, max = 9) int maxChunk) {
        ChunkedSortedSet<Integer> set = ChunkedSortedSet.empty(Comparator.naturalOrder(), maxChunk);
        TreeSet<Integer> model = new TreeSet<>();
        List<ChunkedSortedSet<Integer>> history = new ArrayList<>();
        List<List<Integer>> historyModel = new ArrayList<>();
        for (Batch batch : batches) {
            int[] removals = new int[model.isEmpty() ? 0 : batch.removePicks().size()];
            List<Integer> asList = new ArrayList<>(model);
            TreeSet<Integer> next = new TreeSet<>(model);
            for (int i = 0; i < removals.length; i++) {
                removals[i] = Math.floorMod(batch.removePicks().get(i), model.size());
                next.remove(asList.get(removals[i]));
            }
            boolean clash = false;
            for (Integer a : batch.additions()) {
                clash |= !next.add(a);
            }
            if (clash) {
                ChunkedSortedSet<Integer> before = set;
                assertThrows(IllegalArgumentException.class, () -> before.with(removals, batch.additions()));
            } else {
                set = set.with(removals, batch.additions());
                model = next;
            }
            assertSame(model, set);
            history.add(set);
            historyModel.add(new ArrayList<>(model));
        }
        for (int i = 0; i < history.size(); i++) {
            assertEquals(historyModel.get(i), toList(history.get(i)), "version " + i + " changed after later edits");
        }
    }

    private static void assertSame(TreeSet<Integer> model, ChunkedSortedSet<Integer> set) {
        List<Integer> expected = new ArrayList<>(model);
        assertEquals(expected.size(), set.size());
        assertEquals(expected, toList(set));
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), set.get(i), "get(" + i + ")");
            assertEquals(i, set.indexOf(expected.get(i)));
        }
        assertThrows(IndexOutOfBoundsException.class, () -> set.get(expected.size()));
        for (int probe = -2; probe <= 42; probe++) {
            int p = probe;
            assertEquals(model.headSet(p).size(), set.firstIndex(e -> e >= p), "first index at or after " + p);
            if (!model.contains(p)) {
                assertEquals(-1, set.indexOf(p));
            }
        }
        checkChunks(set);
    }

    static void checkChunks(ChunkedSortedSet<Integer> set) {
        int total = 0;
        Integer previous = null;
        for (int c = 0; c < set.chunkCount(); c++) {
            Object[] chunk = set.chunk(c);
            assertTrue(chunk.length > 0 && chunk.length <= set.maxChunk(), "chunk " + c + " size " + chunk.length);
            assertTrue(set.chunkCount() == 1 || chunk.length >= set.minChunk(),
                    "chunk " + c + " of " + set.chunkCount() + " below the minimum: " + chunk.length);
            for (Object o : chunk) {
                Integer e = (Integer) o;
                assertTrue(previous == null || previous < e, "out of order: " + previous + ", " + e);
                previous = e;
            }
            total += chunk.length;
        }
        assertEquals(set.size(), total);
    }

    private static List<Integer> toList(ChunkedSortedSet<Integer> set) {
        List<Integer> out = new ArrayList<>();
        set.forEach(out::add);
        return out;
    }

    @Provide
    Arbitrary<List<Batch>> batches() {
        Arbitrary<List<Integer>> picks = Arbitraries.integers().between(0, 1000).list().ofMaxSize(6);
        Arbitrary<List<Integer>> additions = Arbitraries.integers().between(0, 40).list().ofMaxSize(12);
        return Combinators.combine(picks, additions).as(Batch::new).list().ofMinSize(1).ofMaxSize(30);
    }

    @Test
    void anEditInAHundredThousandCopiesOnlyTheChunksItTouches() {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            all.add(i * 2);
        }
        ChunkedSortedSet<Integer> big = ChunkedSortedSet.<Integer>empty(Comparator.naturalOrder()).with(new int[0], all);
        checkChunks(big);
        ChunkedSortedSet<Integer> next = big.with(new int[] {50_000}, List.of(77_777));
        checkChunks(next);

        Set<Object[]> before = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (int c = 0; c < big.chunkCount(); c++) {
            before.add(big.chunk(c));
        }
        int copied = 0;
        for (int c = 0; c < next.chunkCount(); c++) {
            if (!before.contains(next.chunk(c))) {
                copied++;
            }
        }
        // One chunk loses an element, another gains one and may split in two (chunks start full): at most 3.
        assertTrue(copied <= 3, "an edit touching two chunks copied " + copied + " chunks");
        assertTrue(copied >= 2, "both touched chunks must be copies: " + copied);
        assertEquals(100_000, next.size());
        assertEquals(-1, next.indexOf(100_000));
        assertTrue(next.indexOf(77_777) >= 0);
    }

    @Test
    void removalsOutOfRangeAreRejected() {
        ChunkedSortedSet<Integer> set = ChunkedSortedSet.<Integer>empty(Comparator.naturalOrder(), 4).with(new int[0], List.of(1, 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> set.with(new int[] {3}, List.of()));
        assertThrows(IndexOutOfBoundsException.class, () -> set.with(new int[] {-1}, List.of()));
        assertThrows(IllegalArgumentException.class, () -> ChunkedSortedSet.empty(Comparator.<Integer>naturalOrder(), 1));
    }
}
