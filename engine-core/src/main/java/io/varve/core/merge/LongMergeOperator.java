package io.varve.core.merge;

import java.lang.foreign.MemorySegment;

/**
 * A {@link MergeOperator} whose values and operands are 64-bit integers combined by an associative and
 * commutative operation (addition, for {@link MergeOperators#int64Add}). A read may then fold a key's
 * operands into a {@code long} as it meets them, newest first, straight from the memory they are stored in,
 * instead of copying each one out and calling {@link #fullMerge} with the list: resolving a counter with many
 * operands allocates only its result. Operators of any other shape implement {@link MergeOperator} alone and
 * always take the general path.
 *
 * <p>What makes the folding exact, and what an implementation promises: whenever {@link #decode} accepts the
 * stored value (if there is one) and every operand, {@link #fullMerge} returns {@link #encode} of
 * {@link #combine} applied to their decoded integers, starting from {@link #identity()}, in any order and
 * grouping. Where {@link #decode} throws, or any method of this interface does, the engine abandons the
 * folding and resolves the key through {@link #fullMerge}, so a malformed operand fails (or is handled)
 * exactly as it would without this interface. Implementations must be deterministic and thread-safe, like
 * every merge operator.
 */
public interface LongMergeOperator extends MergeOperator {

    /** The integer folding starts from; {@code combine(identity(), x) == x}. */
    long identity();

    /**
     * The integer a stored value or an operand holds (a view, valid only during the call).
     *
     * @throws IllegalArgumentException if the bytes do not hold one
     */
    long decode(MemorySegment bytes);

    /** Combines two integers; associative and commutative. */
    long combine(long accumulated, long next);

    /** The stored form of {@code value}, as {@link #fullMerge} would return it. */
    byte[] encode(long value);
}
