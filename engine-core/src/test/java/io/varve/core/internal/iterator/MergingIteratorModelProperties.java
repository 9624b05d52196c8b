package io.varve.core.internal.iterator;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The merging iterator over many children against a {@code TreeMap} of every child's entries: the children
 * take turns in runs (often long ones from one child, which the heap serves without sifting, and short
 * alternations, which make it sift), some user keys have entries in several children, and a random walk of
 * seeks both ways, steps and direction changes must land on the oracle's entry at every step.
 */
class MergingIteratorModelProperties {

    /** An entry as the oracle orders it: internal-key order, the child it lives in as its value. */
    record Entry(byte[] userKey, long trailer) {
    }

    private static final Comparator<Entry> INTERNAL_ORDER = (a, b) -> InternalKey.compare(
            MemorySegment.ofArray(a.userKey), a.trailer, MemorySegment.ofArray(b.userKey), b.trailer);

    /** {@code length} consecutive entries given to child {@code child}; {@code sameKey} reuses the last user key. */
    record Run(int child, int length, boolean sameKey) {
    }

    sealed interface Move permits SeekToFirst, SeekToLast, Seek, SeekForPrev, Steps {
    }

    record SeekToFirst() implements Move {
    }

    record SeekToLast() implements Move {
    }

    /** Seeks to user key number {@code key} (between stored keys when odd), trailer visible at {@code sequence}. */
    record Seek(int key, long sequence) implements Move {
    }

    record SeekForPrev(int key, long sequence) implements Move {
    }

    record Steps(int count, boolean forward) implements Move {
    }

    @Property(tries = 200)
    void agreesWithTreeMap(@ForAll("children") int childCount, @ForAll("runs") List<Run> runs,
                           @ForAll("moves") List<Move> moves) {
        List<Memtable> memtables = new ArrayList<>();
        for (int i = 0; i < childCount; i++) {
            memtables.add(new Memtable(1 << 20));
        }
        try {
            TreeMap<Entry, Integer> oracle = fill(memtables, runs);
            List<InternalIterator> iterators = new ArrayList<>();
            for (Memtable memtable : memtables) {
                iterators.add(memtable.iterator());
            }
            try (MergingIterator merged = new MergingIterator(iterators)) {
                Entry expected = null;
                for (Move move : moves) {
                    switch (move) {
                        case SeekToFirst s -> {
                            merged.seekToFirst();
                            expected = oracle.isEmpty() ? null : oracle.firstKey();
                        }
                        case SeekToLast s -> {
                            merged.seekToLast();
                            expected = oracle.isEmpty() ? null : oracle.lastKey();
                        }
                        case Seek s -> {
                            Entry target = target(s.key, s.sequence);
                            merged.seek(MemorySegment.ofArray(target.userKey), target.trailer);
                            expected = oracle.ceilingKey(target);
                        }
                        case SeekForPrev s -> {
                            Entry target = target(s.key, s.sequence);
                            merged.seekForPrev(MemorySegment.ofArray(target.userKey), target.trailer);
                            expected = oracle.floorKey(target);
                        }
                        case Steps s -> {
                            for (int i = 0; i < s.count && expected != null; i++) {
                                if (s.forward) {
                                    merged.next();
                                    expected = oracle.higherKey(expected);
                                } else {
                                    merged.prev();
                                    expected = oracle.lowerKey(expected);
                                }
                                assertAt(expected, oracle, merged, move);
                            }
                        }
                    }
                    assertAt(expected, oracle, merged, move);
                }
            }
        } finally {
            memtables.forEach(Memtable::release);
        }
    }

    /** Writes the runs into the children; returns every entry with the child that holds it. */
    private static TreeMap<Entry, Integer> fill(List<Memtable> memtables, List<Run> runs) {
        TreeMap<Entry, Integer> oracle = new TreeMap<>(INTERNAL_ORDER);
        int userKey = 0;
        // Entries are written in internal-key order: a reused user key gets an older (smaller) sequence.
        long sequence = 1_000_000;
        boolean first = true;
        for (Run run : runs) {
            int child = run.child % memtables.size();
            for (int i = 0; i < run.length; i++) {
                if (!first && !(run.sameKey && i == 0)) {
                    userKey += 2;
                }
                first = false;
                Entry entry = new Entry(key(userKey), InternalKey.trailer(sequence--, ValueKind.PUT));
                assertTrue(memtables.get(child).add(MemorySegment.ofArray(entry.userKey), entry.trailer,
                        MemorySegment.ofArray(new byte[] {(byte) child})), "child " + child + " is full");
                oracle.put(entry, child);
            }
        }
        return oracle;
    }

    private static Entry target(int key, long sequence) {
        return new Entry(key(key), InternalKey.seekTrailer(sequence));
    }

    /** User key number {@code n}; stored keys are even, so an odd one falls between two of them. */
    private static byte[] key(int n) {
        return String.format("k%06d", n).getBytes(StandardCharsets.US_ASCII);
    }

    private static void assertAt(Entry expected, Map<Entry, Integer> oracle, MergingIterator merged, Move move) {
        if (expected == null) {
            assertFalse(merged.valid(), () -> "after " + move + " the iterator should be exhausted, is at "
                    + describe(merged));
            return;
        }
        assertTrue(merged.valid(), () -> "after " + move + " expected " + describe(expected) + ", exhausted");
        assertEquals(describe(expected), describe(merged), () -> "after " + move);
        assertEquals(oracle.get(expected).byteValue(), merged.value().get(ValueLayout.JAVA_BYTE, 0),
                () -> "child of " + describe(expected));
    }

    private static String describe(Entry entry) {
        return new String(entry.userKey, StandardCharsets.US_ASCII) + "@" + InternalKey.sequence(entry.trailer);
    }

    private static String describe(MergingIterator merged) {
        return new String(Keys.toArray(merged.userKey()), StandardCharsets.US_ASCII) + "@"
                + InternalKey.sequence(merged.trailer());
    }

    @Provide
    Arbitrary<Integer> children() {
        return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.integers().between(1, 3)),
                Tuple.of(3, Arbitraries.integers().between(4, 16)));
    }

    @Provide
    Arbitrary<List<Run>> runs() {
        Arbitrary<Integer> lengths = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.integers().between(1, 3)),
                Tuple.of(2, Arbitraries.integers().between(20, 120)));
        Arbitrary<Boolean> sameKey = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(false)),
                Tuple.of(1, Arbitraries.just(true)));
        return Combinators.combine(Arbitraries.integers().between(0, 15), lengths, sameKey).as(Run::new)
                .list().ofMaxSize(30);
    }

    @Provide
    Arbitrary<List<Move>> moves() {
        Arbitrary<Integer> keys = Arbitraries.integers().between(-1, 7300);
        Arbitrary<Long> sequences = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(InternalKey.MAX_SEQUENCE)),
                Tuple.of(1, Arbitraries.longs().between(990_000, 1_000_001)));
        Arbitrary<Move> move = Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(new SeekToFirst())),
                Tuple.of(1, Arbitraries.just(new SeekToLast())),
                Tuple.of(2, Combinators.combine(keys, sequences).as(Seek::new)),
                Tuple.of(2, Combinators.combine(keys, sequences).as(SeekForPrev::new)),
                Tuple.of(6, Combinators.combine(Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.integers().between(1, 4)),
                        Tuple.of(1, Arbitraries.integers().between(50, 400))), Arbitraries.of(true, false))
                        .as(Steps::new)));
        return move.list().ofMinSize(1).ofMaxSize(25);
    }
}
