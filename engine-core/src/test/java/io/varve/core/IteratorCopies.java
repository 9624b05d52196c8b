package io.varve.core;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Checks {@link DbIterator#key(byte[])} and {@link DbIterator#value(byte[])} against {@code key()} and
 * {@code value()} at the iterator's current entry, into buffers shorter than, as long as and longer than
 * the bytes: the full length comes back, the bytes that fit are copied, the rest of the buffer is untouched.
 */
final class IteratorCopies {
    private static final byte UNTOUCHED = 0x5A;

    private IteratorCopies() {
    }

    static void assertCopiesMatch(DbIterator it) {
        byte[] key = it.key();
        byte[] value = it.value();
        for (int size : new int[] {0, key.length / 2, key.length, key.length + 3}) {
            byte[] dest = buffer(size);
            assertEquals(key.length, it.key(dest), "key length");
            assertCopied(key, dest, "key");
        }
        for (int size : new int[] {0, value.length / 2, value.length, value.length + 3}) {
            byte[] dest = buffer(size);
            assertEquals(value.length, it.value(dest), "value length");
            assertCopied(value, dest, "value");
        }
    }

    private static byte[] buffer(int size) {
        byte[] dest = new byte[size];
        Arrays.fill(dest, UNTOUCHED);
        return dest;
    }

    private static void assertCopied(byte[] expected, byte[] dest, String what) {
        int copied = Math.min(expected.length, dest.length);
        assertArrayEquals(Arrays.copyOf(expected, copied), Arrays.copyOf(dest, copied), what + " bytes");
        for (int i = copied; i < dest.length; i++) {
            assertEquals(UNTOUCHED, dest[i], what + ": byte " + i + " past the copy was written");
        }
    }
}
