package io.varve.core;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A key of the model-based properties: byte-array contents with the engine's order (unsigned bytes), so a
 * {@code TreeMap<ModelKey, ...>} is the oracle's sorted map.
 */
record ModelKey(byte[] bytes) implements Comparable<ModelKey> {
    @Override
    public int compareTo(ModelKey other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelKey k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}
