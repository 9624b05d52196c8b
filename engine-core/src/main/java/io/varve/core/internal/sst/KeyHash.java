package io.varve.core.internal.sst;

import static io.varve.core.internal.sst.TableFormat.HASH_FINAL_MULTIPLIER_1;
import static io.varve.core.internal.sst.TableFormat.HASH_FINAL_MULTIPLIER_2;
import static io.varve.core.internal.sst.TableFormat.HASH_MULTIPLIER_1;
import static io.varve.core.internal.sst.TableFormat.HASH_MULTIPLIER_2;
import static io.varve.core.internal.sst.TableFormat.HASH_SEED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 64-bit hash of user keys used by bloom filters. It is part of the stored format (a filter written with
 * one hash cannot be probed with another), so its output is pinned by a known-answer test.
 *
 * <p>Shape: the state starts from a seed mixed with the length; each 8-byte little-endian word (the last,
 * partial word zero-padded) is scrambled with multiply-rotate-multiply and folded in with a rotate and a
 * multiply-add; a final avalanche (xor-shift / multiply, as in SplitMix64) spreads every input bit over every
 * output bit. Mixing in the length keeps keys that differ only by trailing zero bytes apart.
 */
final class KeyHash {

    private static final ValueLayout.OfLong WORD =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private KeyHash() {
    }

    public static long hash64(MemorySegment key) {
        long length = key.byteSize();
        long h = HASH_SEED ^ (length * HASH_MULTIPLIER_1);
        long i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            h = absorb(h, key.get(WORD, i));
        }
        if (i < length) {
            long tail = 0;
            for (int shift = 0; i < length; i++, shift += 8) {
                tail |= (key.get(ValueLayout.JAVA_BYTE, i) & 0xFFL) << shift;
            }
            h = absorb(h, tail);
        }
        return avalanche(h);
    }

    public static long hash64(byte[] key) {
        return hash64(MemorySegment.ofArray(key));
    }

    private static long absorb(long h, long word) {
        long w = word * HASH_MULTIPLIER_2;
        w = Long.rotateLeft(w, 31);
        w *= HASH_MULTIPLIER_1;
        h ^= w;
        return Long.rotateLeft(h, 27) * HASH_MULTIPLIER_1 + HASH_MULTIPLIER_2;
    }

    private static long avalanche(long h) {
        h ^= h >>> 30;
        h *= HASH_FINAL_MULTIPLIER_1;
        h ^= h >>> 27;
        h *= HASH_FINAL_MULTIPLIER_2;
        h ^= h >>> 31;
        return h;
    }
}
