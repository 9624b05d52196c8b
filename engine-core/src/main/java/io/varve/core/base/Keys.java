package io.varve.core.base;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** Keys compare as unsigned bytes, lexicographically, shorter prefix first — as in RocksDB and Pebble. */
public final class Keys {

    private Keys() {
    }

    public static int compare(MemorySegment a, MemorySegment b) {
        long mismatch = a.mismatch(b);
        if (mismatch < 0) {
            return 0;
        }
        if (mismatch == a.byteSize()) {
            return -1;
        }
        if (mismatch == b.byteSize()) {
            return 1;
        }
        return Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, mismatch))
                - Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, mismatch));
    }

    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    public static byte[] toArray(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }
}
