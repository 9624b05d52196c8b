package io.varve.core.internal.keys;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** Keys compare as unsigned bytes, lexicographically, shorter prefix first — as in RocksDB and Pebble. */
public final class Keys {

    private static final VarHandle BIG_ENDIAN_LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BIG_ENDIAN_WORD =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

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

    /**
     * Compares {@code a[aOffset, aOffset + aLength)} with {@code b[bOffset, bOffset + bLength)} in place, eight
     * bytes at a time as big-endian words (whose unsigned order is the bytes' order). Memtable and table
     * searches run this for every key they pass: slicing would allocate, and {@code MemorySegment.mismatch}'s
     * fixed cost per call was the top item of lookup profiles for keys this short.
     */
    public static int compare(MemorySegment a, long aOffset, long aLength, MemorySegment b, long bOffset,
                              long bLength) {
        long common = Math.min(aLength, bLength);
        long i = 0;
        for (; i + Long.BYTES <= common; i += Long.BYTES) {
            long x = a.get(BIG_ENDIAN_WORD, aOffset + i);
            long y = b.get(BIG_ENDIAN_WORD, bOffset + i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < common; i++) {
            int d = Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, aOffset + i))
                    - Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bOffset + i));
            if (d != 0) {
                return d;
            }
        }
        return Long.compare(aLength, bLength);
    }

    /**
     * {@link #compare(MemorySegment, MemorySegment)} of an array and a segment without wrapping the array: point
     * lookups run this for every table they consider, and a wrapper per call is garbage on the read path.
     * Compares eight bytes at a time as big-endian words, so the first differing word decides.
     */
    public static int compare(byte[] a, MemorySegment b) {
        long bLength = b.byteSize();
        int common = (int) Math.min(a.length, bLength);
        int i = 0;
        for (; i + Long.BYTES <= common; i += Long.BYTES) {
            long x = (long) BIG_ENDIAN_LONGS.get(a, i);
            long y = b.get(BIG_ENDIAN_WORD, i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < common; i++) {
            int d = Byte.toUnsignedInt(a[i]) - Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, i));
            if (d != 0) {
                return d;
            }
        }
        return Long.compare(a.length, bLength);
    }

    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    public static byte[] toArray(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Copies the {@code length} bytes at {@code offset} of {@code source} into the start of {@code dest}, as
     * many as fit, and returns {@code length}: a caller whose buffer was short learns the size it needs.
     */
    public static int copyInto(MemorySegment source, long offset, int length, byte[] dest) {
        MemorySegment.copy(source, ValueLayout.JAVA_BYTE, offset, dest, 0, Math.min(length, dest.length));
        return length;
    }
}
