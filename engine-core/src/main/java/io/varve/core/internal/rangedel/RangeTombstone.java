package io.varve.core.internal.rangedel;

import java.util.Arrays;
import java.util.Objects;

/**
 * A deletion of every key {@code k} with {@code begin <= k < end} (unsigned byte order) written at
 * {@code sequence}: it hides entries of those keys with a smaller sequence, from readers at or above it.
 */
public record RangeTombstone(byte[] begin, byte[] end, long sequence) {

    public RangeTombstone {
        Objects.requireNonNull(begin, "begin");
        Objects.requireNonNull(end, "end");
        if (Arrays.compareUnsigned(begin, end) >= 0) {
            throw new IllegalArgumentException("a range deletion needs begin < end");
        }
    }

    /** Whether this tombstone hides an entry of {@code key} written at {@code entrySequence}, for a reader at {@code readSequence}. */
    public boolean hides(byte[] key, long entrySequence, long readSequence) {
        return sequence > entrySequence && sequence <= readSequence
                && Arrays.compareUnsigned(begin, key) <= 0 && Arrays.compareUnsigned(key, end) < 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RangeTombstone t && sequence == t.sequence && Arrays.equals(begin, t.begin)
                && Arrays.equals(end, t.end);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(begin) + Arrays.hashCode(end)) + Long.hashCode(sequence);
    }

    @Override
    public String toString() {
        return "RangeTombstone[" + Arrays.toString(begin) + ", " + Arrays.toString(end) + ") @" + sequence;
    }
}
