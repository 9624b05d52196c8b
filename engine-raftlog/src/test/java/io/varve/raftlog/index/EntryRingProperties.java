package io.varve.raftlog.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/** {@link EntryRing} against a TreeMap: appends (with truncation and gap filling), compactions, retains. */
class EntryRingProperties {

    record Step(int kind, int a, int b) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        return Combinators.combine(Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(0)),
                        Tuple.of(2, Arbitraries.just(1)), Tuple.of(1, Arbitraries.just(2)),
                        Tuple.of(1, Arbitraries.just(3))),
                Arbitraries.integers().between(-20, 40), Arbitraries.integers().between(0, 300))
                .as(Step::new).list().ofMaxSize(200);
    }

    @Property(tries = 300)
    void behavesLikeASortedMap(@ForAll("steps") List<Step> steps) {
        EntryRing ring = new EntryRing();
        TreeMap<Long, long[]> model = new TreeMap<>();
        long stamp = 1;
        for (Step s : steps) {
            long last = model.isEmpty() ? 100 : model.lastKey();
            switch (s.kind()) {
                case 0, 3 -> { // append, possibly over the tail or (kind 3) past a gap
                    long first = s.kind() == 3 ? last + 1 + Math.abs(s.a()) : Math.max(0, last + 1 - Math.max(0, s.a()));
                    int n = 1 + s.b() % 50;
                    int firstOrdinal = s.b() % 7;
                    long loc = Location.of(2 * stamp++, 1000);
                    boolean gap = !model.isEmpty() && first > last + 1;
                    ring.append(first, loc, firstOrdinal, n, gap);
                    if (!model.isEmpty() && first <= model.firstKey()) {
                        model.clear();
                    }
                    model.tailMap(first, true).clear();
                    if (gap) {
                        for (long i = last + 1; i < first; i++) {
                            model.put(i, new long[] {Location.PLACEHOLDER, 0});
                        }
                    }
                    for (int i = 0; i < n; i++) {
                        model.put(first + i, new long[] {loc, firstOrdinal + i});
                    }
                }
                case 1 -> {
                    long to = (model.isEmpty() ? 0 : model.firstKey()) + s.a();
                    ring.compactTo(to);
                    model.headMap(to, false).clear();
                }
                default -> {
                    long from = (model.isEmpty() ? 0 : model.firstKey()) + s.a();
                    long count = s.b() % 60;
                    ring.retain(from, count);
                    model.headMap(from, false).clear();
                    model.tailMap(from + count, true).clear();
                }
            }
            assertEquals(model.size(), ring.size());
            if (!model.isEmpty()) {
                assertEquals(model.firstKey(), ring.first());
                assertEquals(model.lastKey(), ring.last());
                long lastHole = -1;
                for (Map.Entry<Long, long[]> e : model.entrySet()) {
                    assertEquals(e.getValue()[0], ring.location(e.getKey()));
                    assertEquals(e.getValue()[1], ring.ordinal(e.getKey()));
                    if (e.getValue()[0] == Location.PLACEHOLDER) {
                        lastHole = e.getKey();
                    }
                }
                assertEquals(lastHole, ring.lastPlaceholder());
            }
            assertTrue(ring.heapBytes() <= 100 + 12L * Math.max(68, 4L * ring.size() + 4), "slack bounded: " + ring);
        }
    }

    @Test
    void oneGroupOfAMillionEntriesOneBatchEachCostsAtMost16BytesPerEntry() {
        EntryRing ring = new EntryRing();
        for (long i = 1; i <= 1_000_000; i++) {
            ring.append(i, Location.of(2 + (i >> 10 << 1), i * 64 % (1L << 30)), 0, 1, false);
        }
        double perEntry = (double) ring.heapBytes() / ring.size();
        assertTrue(perEntry <= 16, "bytes per entry " + perEntry);
        // Compacting most of it gives memory back.
        ring.compactTo(990_001);
        assertTrue(ring.heapBytes() < 16 * 20_000, "after compaction: " + ring.heapBytes());
        assertEquals(990_001, ring.first());
        assertEquals(1_000_000, ring.last());
    }
}
