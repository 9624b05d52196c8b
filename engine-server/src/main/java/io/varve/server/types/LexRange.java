package io.varve.server.types;

import java.util.Arrays;

/**
 * Members by byte order between {@code min} and {@code max}, either end exclusive. A null bound is an open
 * end, except a null exclusive {@code min}, which lies above every member (ZRANGEBYLEX's "+" as the
 * minimum: an empty range).
 */
public record LexRange(byte[] min, boolean minExclusive, byte[] max, boolean maxExclusive) implements SortedRange {

    public boolean emptyBecauseMinIsPlus() {
        return min == null && minExclusive;
    }

    public boolean aboveMin(byte[] member) {
        if (min == null) {
            return !minExclusive;
        }
        int c = Arrays.compareUnsigned(member, min);
        return minExclusive ? c > 0 : c >= 0;
    }

    public boolean belowMax(byte[] member) {
        if (max == null) {
            return true;
        }
        int c = Arrays.compareUnsigned(member, max);
        return maxExclusive ? c < 0 : c <= 0;
    }

    public boolean contains(byte[] member) {
        return aboveMin(member) && belowMax(member);
    }
}
