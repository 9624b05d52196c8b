package io.varve.core.internal.txn;

import java.util.Arrays;
import java.util.HexFormat;

/** A key's bytes with value equality, for hash maps; never changed after construction. */
public record Bytes(byte[] bytes) {

    public static Bytes copyOf(byte[] bytes) {
        return new Bytes(bytes.clone());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
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
