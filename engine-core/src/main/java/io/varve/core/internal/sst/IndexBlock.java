package io.varve.core.internal.sst;

import io.varve.base.Varint;
import io.varve.base.CorruptionException;
import java.lang.foreign.MemorySegment;

/**
 * Random access to a table's index block: entry {@code i} holds a separator key for data block {@code i}
 * (at least that block's last key and less than the next block's first key) and that block's handle.
 *
 * <p>The index is written with a restart interval of 1, so every entry stores its whole key and the restart
 * array doubles as an array of entry offsets: the reader binary-searches it in place, without copying the
 * index to the heap. {@link #parse} walks every entry once at open and checks everything the later lookups
 * rely on; after that, decoding an entry again cannot fail.
 *
 * <p>The walk also keeps where each separator's user key starts and ends (8 bytes per data block, beside the
 * index's own 30 or so): every point lookup compares about log2(blocks) separators, and each comparison
 * would otherwise decode the entry's three length varints again to find its key.
 */
final class IndexBlock {

    private final Block block;
    private final MemorySegment data;
    private final long globalSequence;
    /** Entry i's separator: user key at {@code [keyStarts[i], userKeyEnds[i])}, trailer right after. */
    private final int[] keyStarts;
    private final int[] userKeyEnds;

    private IndexBlock(Block block, long globalSequence) {
        this.block = block;
        this.data = block.contents;
        this.globalSequence = globalSequence;
        this.keyStarts = new int[block.restartCount];
        this.userKeyEnds = new int[block.restartCount];
    }

    /**
     * Checks the index: every entry is a restart point with a full key, separators strictly increase, and
     * the handles tile {@code [0, dataEnd)} exactly, first block at offset 0, each starting where the
     * previous block's trailer ends.
     */
    static IndexBlock parse(Block block, long dataEnd, long globalSequence) throws CorruptionException {
        IndexBlock index = new IndexBlock(block, globalSequence);
        int count = block.restartCount;
        if (count == 0) {
            throw block.corruption("index block is empty");
        }
        long expectedOffset = 0;
        for (int i = 0; i < count; i++) {
            int position = block.restart(i);
            int entryEnd = i + 1 < count ? block.restart(i + 1) : block.entriesEnd;
            long shared = Varint.decodeInt(index.data, position, entryEnd);
            if (shared == Varint.MALFORMED || Varint.value(shared) != 0 || Varint.length(shared) != 1) {
                throw block.corruption("index entry " + i + " does not hold a full key");
            }
            long cursor = position + Varint.length(shared);
            long keySize = Varint.decodeInt(index.data, cursor, entryEnd);
            if (keySize == Varint.MALFORMED) {
                throw block.corruption("index entry " + i + " has a bad key length");
            }
            cursor += Varint.length(keySize);
            long valueSize = Varint.decodeInt(index.data, cursor, entryEnd);
            if (valueSize == Varint.MALFORMED) {
                throw block.corruption("index entry " + i + " has a bad value length");
            }
            cursor += Varint.length(valueSize);
            long keyBytes = Varint.value(keySize);
            if (keyBytes < TableFormat.KEY_TRAILER_SIZE
                    || cursor + keyBytes + Varint.value(valueSize) != entryEnd) {
                throw block.corruption("index entry " + i + " does not fill its slot exactly");
            }
            long valueStart = cursor + keyBytes;
            index.keyStarts[i] = (int) cursor;
            index.userKeyEnds[i] = (int) (valueStart - TableFormat.KEY_TRAILER_SIZE);
            long offset = Varint.decodeLong(index.data, valueStart, entryEnd);
            long sizeStart = valueStart + Varint.encodedLength(offset);
            long size = offset == Varint.MALFORMED ? Varint.MALFORMED
                    : Varint.decodeLong(index.data, sizeStart, entryEnd);
            if (offset == Varint.MALFORMED || size == Varint.MALFORMED
                    || sizeStart + Varint.encodedLength(size) != entryEnd) {
                throw block.corruption("index entry " + i + " has a malformed block handle");
            }
            if (offset != expectedOffset || size > TableFormat.MAX_BLOCK_CONTENTS_SIZE
                    || offset + size + TableFormat.BLOCK_TRAILER_SIZE > dataEnd) {
                throw block.corruption("index entry " + i + " points at [" + offset + ", +" + size
                        + "), expected a block at " + expectedOffset + " ending by " + dataEnd);
            }
            expectedOffset = offset + size + TableFormat.BLOCK_TRAILER_SIZE;
            if (i > 0 && index.compareSeparators(i - 1, i) >= 0) {
                throw block.corruption("index separators " + (i - 1) + " and " + i + " are out of order");
            }
        }
        if (expectedOffset != dataEnd) {
            throw block.corruption("data blocks end at " + expectedOffset + " but metadata starts at " + dataEnd);
        }
        return index;
    }

    int count() {
        return block.restartCount;
    }

    long blockOffset(int i) {
        return Varint.decodeLong(data, valueStart(i), block.entriesEnd);
    }

    int blockSize(int i) {
        long valueStart = valueStart(i);
        long offset = Varint.decodeLong(data, valueStart, block.entriesEnd);
        return (int) Varint.decodeLong(data, valueStart + Varint.encodedLength(offset), block.entriesEnd);
    }

    /**
     * The first block whose separator is {@code >= (userKey, trailer)}: the only block that can hold the
     * first entry at or after the target, unless that block ends before it (then it is the next one).
     * Returns {@link #count()} when every separator is smaller.
     */
    int findFirstAtOrAfter(MemorySegment userKey, long trailer) {
        int low = 0;
        int high = count();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (compareSeparator(mid, userKey, trailer) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** Compares separator {@code i} with {@code (userKey, trailer)} in internal-key order. */
    int compareSeparator(int i, MemorySegment userKey, long trailer) {
        long keyStart = keyStarts[i];
        long userKeyEnd = userKeyEnds[i];
        long separatorTrailer = InternalKeys.present(InternalKeys.readTrailer(data, userKeyEnd), globalSequence);
        return InternalKeys.compare(data, keyStart, userKeyEnd, separatorTrailer, userKey, trailer);
    }

    private int compareSeparators(int a, int b) {
        long bStart = keyStarts[b];
        long bUserKeyEnd = userKeyEnds[b];
        long bTrailer = InternalKeys.present(InternalKeys.readTrailer(data, bUserKeyEnd), globalSequence);
        return compareSeparator(a, data.asSlice(bStart, bUserKeyEnd - bStart), bTrailer);
    }

    /** Entry layout, with shared always 0: | 0 | key length | value length | key | value |. */
    private long valueStart(int i) {
        return userKeyEnds[i] + (long) TableFormat.KEY_TRAILER_SIZE;
    }

    /** The separator of entry {@code i} as a user key slice, for messages and tests. */
    MemorySegment separatorUserKey(int i) {
        return data.asSlice(keyStarts[i], userKeyEnds[i] - keyStarts[i]);
    }
}
