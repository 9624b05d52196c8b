package io.varve.core.merge;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Combines a key's stored value with operands written by {@code merge}, in Java, on whatever thread reads or
 * compacts the key (RocksDB's associative merge operator, without a native callback per call). Set one per
 * column family.
 *
 * <p>The segments handed in are views of the engine's memory, valid only during the call: read them, do not
 * keep them. Implementations must be deterministic and thread-safe (reads and compactions call them
 * concurrently). An exception thrown here fails the read that needed the merge, naming the key and the
 * operator; compaction then keeps the operands unmerged. An operator over 64-bit integers whose operands
 * combine in any order can also implement {@link LongMergeOperator}, and reads then fold its operands without
 * copying them.
 */
public interface MergeOperator {

    /** A stable name, recorded with the column family and shown in errors. */
    String name();

    /**
     * The value that results from applying {@code operands} (oldest first, never empty) to {@code existing}
     * (null when the key has no value below the operands: never written, or deleted).
     */
    byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands);

    /**
     * Combines {@code operands} (oldest first, at least two) into one operand with the same effect, without
     * knowing the value below them; null when this operator cannot (then the operands are kept as they are).
     * Lets compaction and the memtable shorten a long chain of operands before the base value is known.
     */
    default byte[] partialMerge(MemorySegment key, List<MemorySegment> operands) {
        return null;
    }
}
