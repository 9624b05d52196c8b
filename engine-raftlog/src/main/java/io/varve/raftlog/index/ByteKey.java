package io.varve.raftlog.index;

import java.util.Arrays;

/** A state key compared by content. The array is owned by the index and never modified. */
public record ByteKey(byte[] bytes) {

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return Arrays.toString(bytes);
    }
}
