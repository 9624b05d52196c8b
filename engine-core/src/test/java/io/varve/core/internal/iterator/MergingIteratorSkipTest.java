package io.varve.core.internal.iterator;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Jumping over a range tombstone's stretch: only children wholly older than the tombstone move, they land on
 * the stretch's edge, and the merged position is the smallest (or largest) of what remains.
 */
class MergingIteratorSkipTest {

    private final List<Memtable> memtables = new ArrayList<>();

    @AfterEach
    void free() {
        memtables.forEach(Memtable::release);
    }

    @Test
    void forwardSkipMovesOnlyOlderChildrenToTheEnd() {
        // Old child: k00..k19 at sequences 1..20. New child: k05 and k12 at sequences 100 and 101.
        Memtable old = memtable();
        for (int k = 0; k < 20; k++) {
            put(old, k, k + 1);
        }
        Memtable recent = memtable();
        put(recent, 5, 100);
        put(recent, 12, 101);
        try (MergingIterator merged = new MergingIterator(List.of(old.iterator(), recent.iterator()),
                new long[] {20, Long.MAX_VALUE})) {
            merged.seek(key(3), InternalKey.seekTrailer(200));
            merged.next();
            // A tombstone at sequence 50 over [k03, k15): the old child jumps to k15, the new one stays.
            merged.skipCoveredForward(50, key(15));
            assertEquals(List.of("k05@100", "k12@101", "k15@16", "k16@17"), take(merged, 4, true));
        }
    }

    @Test
    void backwardSkipMovesOnlyOlderChildrenBeforeTheBegin() {
        Memtable old = memtable();
        for (int k = 0; k < 20; k++) {
            put(old, k, k + 1);
        }
        Memtable recent = memtable();
        put(recent, 8, 100);
        try (MergingIterator merged = new MergingIterator(List.of(old.iterator(), recent.iterator()),
                new long[] {20, Long.MAX_VALUE})) {
            merged.seekForPrev(key(17), 0L);
            merged.prev();
            merged.skipCoveredBackward(50, key(4));
            assertEquals(List.of("k08@100", "k03@4", "k02@3"), take(merged, 3, false));
        }
    }

    @Test
    void aTombstoneOlderThanAChildMovesNothing() {
        Memtable child = memtable();
        for (int k = 0; k < 5; k++) {
            put(child, k, 10 + k);
        }
        try (MergingIterator merged = new MergingIterator(List.of(child.iterator()), new long[] {14})) {
            merged.seekToFirst();
            merged.skipCoveredForward(14, key(4));
            assertEquals(List.of("k00@10", "k01@11"), take(merged, 2, true));
        }
    }

    @Test
    void childrenWithoutBoundsAreNeverMoved() {
        Memtable child = memtable();
        for (int k = 0; k < 5; k++) {
            put(child, k, 1 + k);
        }
        try (MergingIterator merged = new MergingIterator(List.of(child.iterator()))) {
            merged.seekToFirst();
            merged.skipCoveredForward(InternalKey.MAX_SEQUENCE, key(4));
            assertEquals(List.of("k00@1"), take(merged, 1, true));
        }
    }

    @Test
    void skippingAgainstTheDirectionIsRefused() {
        Memtable child = memtable();
        put(child, 1, 1);
        try (MergingIterator merged = new MergingIterator(List.of(child.iterator()), new long[] {1})) {
            merged.seekToFirst();
            assertThrows(IllegalStateException.class, () -> merged.skipCoveredBackward(5, key(0)));
            merged.seekToLast();
            assertThrows(IllegalStateException.class, () -> merged.skipCoveredForward(5, key(9)));
        }
    }

    private Memtable memtable() {
        Memtable memtable = new Memtable(Memtable.MIN_CAPACITY);
        memtables.add(memtable);
        return memtable;
    }

    private static void put(Memtable memtable, int key, long sequence) {
        memtable.add(key(key), InternalKey.trailer(sequence, ValueKind.PUT), MemorySegment.ofArray(new byte[1]));
    }

    private static MemorySegment key(int k) {
        return MemorySegment.ofArray(String.format("k%02d", k).getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> take(InternalIterator it, int count, boolean forward) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count && it.valid(); i++) {
            out.add(new String(it.userKey().toArray(ValueLayout.JAVA_BYTE),
                    StandardCharsets.UTF_8) + "@" + InternalKey.sequence(it.trailer()));
            if (forward) {
                it.next();
            } else {
                it.prev();
            }
        }
        return out;
    }
}
