package io.varve.core.internal.merge;

import io.varve.core.merge.MergeFailedException;
import io.varve.core.merge.MergeOperator;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** Calls a family's merge operator for a read, turning whatever goes wrong into a {@link MergeFailedException}. */
public final class Merges {

    private Merges() {
    }

    /**
     * The key's value after applying {@code operands} (oldest first, not empty) to {@code base} (null for none).
     *
     * @throws MergeFailedException if {@code operator} is null, throws, or returns null
     */
    public static byte[] fullMerge(MergeOperator operator, byte[] key, byte[] base, List<byte[]> operands) {
        if (operator == null) {
            throw new MergeFailedException(key, "(none)", "the column family holds merge operands but has no "
                    + "merge operator; open it with ColumnFamilyOptions.withMergeOperator", null);
        }
        List<MemorySegment> views = new ArrayList<>(operands.size());
        for (byte[] operand : operands) {
            views.add(MemorySegment.ofArray(operand).asReadOnly());
        }
        byte[] merged;
        try {
            merged = operator.fullMerge(MemorySegment.ofArray(key).asReadOnly(),
                    base == null ? null : MemorySegment.ofArray(base).asReadOnly(), views);
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vm) {
                throw vm;
            }
            throw new MergeFailedException(key, operator.name(), String.valueOf(e.getMessage()), e);
        }
        if (merged == null) {
            throw new MergeFailedException(key, operator.name(), "fullMerge returned null", null);
        }
        return merged;
    }
}
