package io.varve.core.internal.version;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A level's file set against a map from file number to table, answering every query by brute force: random
 * removals (some of tables that are not there), random additions (some overlapping, which a sorted level
 * must refuse), tiny chunks so that splits and merges happen.
 */
class LevelFilesProperties {

    private static final int KEY_SPACE = 120;

    /** An added table covering keys {@code [low, low + width]}, with a sequence for level 0's order. */
    record NewTable(int low, int width, int sequence) {
    }

    record Edit(List<Integer> removePicks, boolean removeAbsent, List<NewTable> additions) {
    }

    @Property(tries = 150)
    void agreesWithBruteForce(@ForAll("edits") List<Edit> edits, @ForAll @IntRange(min = 0, max = 2) int level,
                              @ForAll @IntRange(min = 2, max = 8) int maxChunk) {
        LevelFiles files = LevelFiles.empty(level, maxChunk);
        Map<Long, TableMeta> model = new TreeMap<>();
        long nextNumber = 1;
        for (Edit edit : edits) {
            List<Long> present = new ArrayList<>(model.keySet());
            Set<Long> removed = new LinkedHashSet<>();
            for (int pick : edit.removePicks()) {
                if (!present.isEmpty()) {
                    removed.add(present.get(Math.floorMod(pick, present.size())));
                }
            }
            if (edit.removeAbsent()) {
                removed.add(nextNumber + 1_000_000);
            }
            List<TableMeta> added = new ArrayList<>();
            for (NewTable n : edit.additions()) {
                added.add(table(nextNumber++, n.low(), n.low() + n.width(), n.sequence()));
            }
            Map<Long, TableMeta> next = new TreeMap<>(model);
            removed.forEach(next::remove);
            added.forEach(t -> next.put(t.fileNumber(), t));
            boolean valid = !edit.removeAbsent() && (level == 0 || disjoint(next.values()));

            LevelFiles before = files;
            Map<Long, TableMeta> modelBefore = model;
            if (valid) {
                files = files.applied(removed, added);
                model = next;
            } else {
                assertThrows(IllegalArgumentException.class, () -> before.applied(removed, added));
            }
            assertAgrees(level, model, files);
            // Immutable: the level the edit started from still answers as before.
            assertAgrees(level, modelBefore, before);
        }
    }

    private static void assertAgrees(int level, Map<Long, TableMeta> model, LevelFiles files) {
        List<TableMeta> expected = new ArrayList<>(model.values());
        expected.sort(level == 0 ? newestFirst() : Comparator.comparingLong(t -> low(t)));
        assertEquals(expected, new ArrayList<>(files), "read order");
        assertEquals(expected.size(), files.size());
        for (int i = 0; i < expected.size(); i++) {
            assertSame(expected.get(i), files.get(i));
        }
        assertEquals(expected.stream().mapToLong(TableMeta::fileSize).sum(), files.totalBytes());
        for (TableMeta t : expected) {
            assertSame(t, files.withNumber(t.fileNumber()));
        }
        assertNull(files.withNumber(0x7fff_ffffL));
        for (int begin = -1; begin <= KEY_SPACE + 8; begin += 3) {
            for (int end = begin; end <= KEY_SPACE + 8; end += 7) {
                byte[] b = begin < 0 ? null : key(begin);
                byte[] e = end > KEY_SPACE ? null : key(end);
                assertEquals(expected.stream().filter(t -> t.overlaps(b, e)).toList(), files.overlapping(b, e),
                        "overlapping " + begin + ".." + end);
            }
        }
        if (level == 0) {
            assertThrows(IllegalStateException.class, () -> files.findCovering(MemorySegment.ofArray(key(0))));
            return;
        }
        for (int k = 0; k <= KEY_SPACE + 8; k++) {
            MemorySegment userKey = MemorySegment.ofArray(key(k));
            TableMeta covering = expected.stream().filter(t -> t.covers(userKey)).findFirst().orElse(null);
            assertSame(covering, files.findCovering(userKey), "table covering " + k);
            int kk = k;
            assertEquals(expected.stream().filter(t -> high(t) <= kk).count(), files.firstEndingAfter(key(k)),
                    "first ending after " + k);
        }
    }

    private static boolean disjoint(java.util.Collection<TableMeta> tables) {
        List<TableMeta> sorted = new ArrayList<>(tables);
        sorted.sort(Comparator.comparingLong(t -> low(t)));
        for (int i = 1; i < sorted.size(); i++) {
            if (high(sorted.get(i - 1)) >= low(sorted.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static Comparator<TableMeta> newestFirst() {
        return Comparator.comparingLong(TableMeta::largestSequence).thenComparingLong(TableMeta::fileNumber).reversed();
    }

    @Provide
    Arbitrary<List<Edit>> edits() {
        Arbitrary<NewTable> table = Combinators.combine(Arbitraries.integers().between(0, KEY_SPACE),
                Arbitraries.integers().between(0, 4), Arbitraries.integers().between(1, 6)).as(NewTable::new);
        Arbitrary<Edit> edit = Combinators.combine(Arbitraries.integers().between(0, 1000).list().ofMaxSize(4),
                Arbitraries.frequency(net.jqwik.api.Tuple.of(1, true), net.jqwik.api.Tuple.of(12, false)),
                table.list().ofMaxSize(6)).as(Edit::new);
        return edit.list().ofMinSize(1).ofMaxSize(25);
    }

    @Test
    void aRemovedTableMustBeAtTheLevel() {
        LevelFiles files = LevelFiles.empty(1).applied(List.of(), List.of(table(5, 0, 3, 1)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> files.applied(List.of(6L), List.of()));
        assertEquals("edit removes table 6 that is not at level 1", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> files.applied(List.of(), List.of(table(5, 10, 12, 1))),
                "the same file number twice at one level");
        assertEquals(1, files.size());
    }

    static TableMeta table(long number, long low, long high, long sequence) {
        long trailer = InternalKey.trailer(number, ValueKind.PUT);
        return new TableMeta(number, 100 + number, key(low), trailer, key(high), trailer, sequence, sequence, -1);
    }

    static byte[] key(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    private static long low(TableMeta t) {
        return ByteBuffer.wrap(t.smallestKey()).getLong();
    }

    private static long high(TableMeta t) {
        return ByteBuffer.wrap(t.largestKey()).getLong();
    }
}
