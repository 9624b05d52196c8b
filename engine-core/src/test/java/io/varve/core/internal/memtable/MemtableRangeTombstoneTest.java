package io.varve.core.internal.memtable;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Range tombstones in a memtable: visible by sequence, and charged to its capacity so they cannot grow unbounded. */
class MemtableRangeTombstoneTest {

    @Test
    void tombstonesAreSeenBySequenceAndFillTheMemtable() {
        Memtable memtable = new Memtable(Memtable.MIN_CAPACITY);
        try {
            assertTrue(add(memtable, "b", "d", 5));
            assertFalse(memtable.isEmpty(), "a memtable holding only a range deletion still needs a flush");
            byte[] c = "c".getBytes(StandardCharsets.UTF_8);
            assertEquals(5, memtable.rangeTombstones().coveringSequence(c, 5));
            assertEquals(0, memtable.rangeTombstones().coveringSequence(c, 4), "newer than the reader: unseen");
            assertEquals(0, memtable.rangeTombstones().coveringSequence("d".getBytes(StandardCharsets.UTF_8), 9));
            long sequence = 6;
            while (add(memtable, "b", "d", sequence)) {
                sequence++;
            }
            assertTrue(memtable.approximateMemoryUsage() <= memtable.capacity());
            assertEquals(sequence - 5, memtable.rangeTombstoneCount(), "the refused one was not kept");
            assertEquals(sequence - 1, memtable.rangeTombstones().coveringSequence(c, Long.MAX_VALUE >>> 8));
        } finally {
            memtable.release();
        }
    }

    private static boolean add(Memtable memtable, String begin, String end, long sequence) {
        return memtable.add(MemorySegment.ofArray(begin.getBytes(StandardCharsets.UTF_8)),
                InternalKey.trailer(sequence, ValueKind.RANGE_DELETE),
                MemorySegment.ofArray(end.getBytes(StandardCharsets.UTF_8)));
    }
}
