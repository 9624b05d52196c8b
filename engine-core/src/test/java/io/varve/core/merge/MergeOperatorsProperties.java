package io.varve.core.merge;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each built-in operator against a plain model, and the associativity that lets compaction merge operands
 * in any grouping: a partial merge of a prefix followed by a full merge gives the same value as one full
 * merge.
 */
class MergeOperatorsProperties {

    private static final MemorySegment KEY = MemorySegment.ofArray(new byte[] {1});

    @Property
    void int64AddSumsWithWraparoundInBothOrders(@ForAll Long existing, @ForAll @Size(min = 1, max = 10) List<Long> adds,
                                                @ForAll boolean bigEndian) {
        ByteOrder order = bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        MergeOperator op = MergeOperators.int64Add(order);
        long expected = existing == null ? 0 : existing;
        List<MemorySegment> operands = new ArrayList<>();
        for (long add : adds) {
            expected += add;
            operands.add(MemorySegment.ofArray(MergeOperators.int64(add, order)));
        }
        MemorySegment base = existing == null ? null : MemorySegment.ofArray(MergeOperators.int64(existing, order));
        assertArrayEquals(MergeOperators.int64(expected, order), op.fullMerge(KEY, base, operands));
        checkRegrouping(op, base, operands);
    }

    @Property
    void appendJoinsWithTheDelimiter(@ForAll byte[] existing, @ForAll @Size(min = 1, max = 8) List<byte[]> operands,
                                     @ForAll @Size(max = 3) byte[] delimiter, @ForAll boolean noBase) {
        MergeOperator op = MergeOperators.append(delimiter);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        boolean first = noBase;
        if (!noBase) {
            expected.writeBytes(existing);
        }
        for (byte[] operand : operands) {
            if (!first) {
                expected.writeBytes(delimiter);
            }
            expected.writeBytes(operand);
            first = false;
        }
        MemorySegment base = noBase ? null : MemorySegment.ofArray(existing);
        List<MemorySegment> segments = operands.stream().map(MemorySegment::ofArray).toList();
        assertArrayEquals(expected.toByteArray(), op.fullMerge(KEY, base, segments));
        checkRegrouping(op, base, segments);
    }

    @Property
    void maxKeepsTheGreatestUnsigned(@ForAll byte[] existing, @ForAll @Size(min = 1, max = 8) List<byte[]> operands,
                                     @ForAll boolean noBase) {
        MergeOperator op = MergeOperators.max();
        byte[] expected = noBase ? null : existing;
        for (byte[] operand : operands) {
            if (expected == null || Arrays.compareUnsigned(operand, expected) > 0) {
                expected = operand;
            }
        }
        MemorySegment base = noBase ? null : MemorySegment.ofArray(existing);
        List<MemorySegment> segments = operands.stream().map(MemorySegment::ofArray).toList();
        assertArrayEquals(expected, op.fullMerge(KEY, base, segments));
        checkRegrouping(op, base, segments);
    }

    /** Partially merging the first k operands, then fully merging with the rest, changes nothing. */
    private static void checkRegrouping(MergeOperator op, MemorySegment base, List<MemorySegment> operands) {
        byte[] whole = op.fullMerge(KEY, base, operands);
        for (int k = 2; k <= operands.size(); k++) {
            byte[] folded = op.partialMerge(KEY, operands.subList(0, k));
            List<MemorySegment> rest = new ArrayList<>();
            rest.add(MemorySegment.ofArray(folded));
            rest.addAll(operands.subList(k, operands.size()));
            assertEquals(Arrays.toString(whole), Arrays.toString(op.fullMerge(KEY, base, rest)), "grouping at " + k);
        }
    }
}
