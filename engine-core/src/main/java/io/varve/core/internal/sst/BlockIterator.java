package io.varve.core.internal.sst;

import io.varve.base.Varint;
import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A cursor over the entries of one {@link Block}, forward and backward.
 *
 * <p>Keys are prefix-compressed, so the current key is rebuilt into a private buffer as entries are decoded;
 * values are slices of the block. Moving backward re-decodes from the nearest earlier restart point (at most
 * one restart interval of work), the classic LevelDB trade-off that keeps blocks compact.
 *
 * <p>Every length read from the block is checked against the block's entry area before it is used, so a
 * damaged block raises {@link CorruptionException} rather than an index error or wrong data. After a
 * failure the cursor is invalid. One iterator object can be pointed at successive blocks with
 * {@link #reset}, which lets the table iterator reuse its key buffer and point lookups reuse one cursor per
 * thread across all tables. Not thread-safe.
 */
final class BlockIterator {

    /** Fixed per table; {@link #reset(Block, long)} changes it for a cursor reused across tables. */
    private long globalSequence;
    /** Data blocks hold real entries whose kind must be known; index separators may use any trailer. */
    private final boolean checkKinds;

    private Block block;
    private MemorySegment data;
    private boolean valid;
    /** Offset of the current entry, and of the entry after it. */
    private int current;
    private int next;
    /** The restart interval that contains {@link #current}. */
    private int restartIndex;

    private byte[] key = new byte[64];
    private MemorySegment keySegment = MemorySegment.ofArray(key);
    private int keyLength;
    /** The current entry's trailer as presented (global sequence applied). */
    private long trailer;
    private int valueOffset;
    private int valueLength;

    BlockIterator(long globalSequence, boolean checkKinds) {
        this.globalSequence = globalSequence;
        this.checkKinds = checkKinds;
    }

    /** Points the cursor at {@code block} of a table presenting {@code newGlobalSequence}, unpositioned. */
    void reset(Block newBlock, long newGlobalSequence) {
        this.globalSequence = newGlobalSequence;
        reset(newBlock);
    }

    /** Points the cursor at {@code block}, unpositioned. */
    void reset(Block newBlock) {
        this.block = newBlock;
        this.data = newBlock.contents;
        this.valid = false;
        this.keyLength = 0;
    }

    /** Forgets the block, so a cursor kept for reuse does not keep a decompressed block reachable. */
    void clear() {
        this.block = null;
        this.data = null;
        this.valid = false;
    }

    Block block() {
        return block;
    }

    boolean valid() {
        return valid;
    }

    void invalidate() {
        valid = false;
    }

    void seekToFirst() throws CorruptionException {
        if (block.restartCount == 0) {
            valid = false;
            return;
        }
        seekToRestart(0);
        parseNext();
    }

    void seekToLast() throws CorruptionException {
        if (block.restartCount == 0) {
            valid = false;
            return;
        }
        seekToRestart(block.restartCount - 1);
        while (parseNext() && next < block.entriesEnd) {
            // keep going until the entry that ends the entry area
        }
    }

    /** Positions at the first entry {@code >= (userKey, trailer)}, or invalid if there is none. */
    void seek(MemorySegment userKey, long targetTrailer) throws CorruptionException {
        if (block.restartCount == 0) {
            valid = false;
            return;
        }
        seekAmongRestarts(userKey, targetTrailer, block.restartCount - 1);
    }

    /**
     * {@link #seek} given {@code restartHint}, the restart interval the block's hash index names for
     * {@code userKey} ({@link Block#restartHint}; -1 for none). The hint is only trusted as far as it is
     * checked: decoding from restart {@code r} finds the right entry whenever everything before {@code r} is
     * below the target, which holds if {@code r} is 0 or its restart key is below the target. A hint that
     * fails the check (a key that starts its interval, or a damaged index) still bounds the binary search,
     * since the restart keys from {@code r} on are then at or above the target. So the index can only ever
     * save work, never change an answer.
     */
    void seek(MemorySegment userKey, long targetTrailer, int restartHint) throws CorruptionException {
        if (restartHint < 0) {
            seek(userKey, targetTrailer);
        } else if (restartHint == 0 || compareRestartKey(restartHint, userKey, targetTrailer) < 0) {
            seekToRestart(restartHint);
            scanTo(userKey, targetTrailer);
        } else {
            seekAmongRestarts(userKey, targetTrailer, restartHint - 1);
        }
    }

    /** Seeks from the last restart point in {@code [0, right]} whose key is below the target (or from 0). */
    private void seekAmongRestarts(MemorySegment userKey, long targetTrailer, int right)
            throws CorruptionException {
        // Find the last restart point whose key is < target; the answer is in its interval or the next.
        int left = 0;
        while (left < right) {
            int mid = (left + right + 1) >>> 1;
            if (compareRestartKey(mid, userKey, targetTrailer) < 0) {
                left = mid;
            } else {
                right = mid - 1;
            }
        }
        seekToRestart(left);
        scanTo(userKey, targetTrailer);
    }

    private void scanTo(MemorySegment userKey, long targetTrailer) throws CorruptionException {
        while (parseNext()) {
            if (compareCurrent(userKey, targetTrailer) >= 0) {
                return;
            }
        }
    }

    /** Positions at the last entry {@code <= (userKey, trailer)}, or invalid if there is none. */
    void seekForPrev(MemorySegment userKey, long targetTrailer) throws CorruptionException {
        seek(userKey, targetTrailer);
        if (!valid) {
            seekToLast();
        } else if (compareCurrent(userKey, targetTrailer) > 0) {
            prev();
        }
    }

    void next() throws CorruptionException {
        requireValid();
        parseNext();
    }

    void prev() throws CorruptionException {
        requireValid();
        int original = current;
        while (block.restart(restartIndex) >= original) {
            if (restartIndex == 0) {
                valid = false;
                return;
            }
            restartIndex--;
        }
        seekToRestart(restartIndex);
        do {
            if (!parseNext()) {
                throw block.corruption("entries do not reach offset " + original + " when scanning back");
            }
        } while (next < original);
        if (next != original) {
            throw block.corruption("entry boundaries inconsistent near block offset " + original);
        }
    }

    MemorySegment userKey() {
        requireValid();
        return keySegment.asSlice(0, keyLength - TableFormat.KEY_TRAILER_SIZE);
    }

    long trailer() {
        requireValid();
        return trailer;
    }

    MemorySegment value() {
        requireValid();
        return data.asSlice(valueOffset, valueLength);
    }

    int copyUserKey(byte[] dest) {
        requireValid();
        return Keys.copyInto(keySegment, 0, keyLength - TableFormat.KEY_TRAILER_SIZE, dest);
    }

    int copyValue(byte[] dest) {
        requireValid();
        return Keys.copyInto(data, valueOffset, valueLength, dest);
    }

    /** The current value's location inside {@link Block#contents}, for callers that slice lazily. */
    int valueOffset() {
        return valueOffset;
    }

    int valueLength() {
        return valueLength;
    }

    /** Compares the current entry with {@code (userKey, trailer)} in internal-key order. */
    int compareCurrent(MemorySegment userKey, long targetTrailer) {
        return InternalKeys.compare(keySegment, 0, keyLength - TableFormat.KEY_TRAILER_SIZE, trailer,
                userKey, targetTrailer);
    }

    /** Whether the current entry's user key equals {@code userKey}. */
    boolean userKeyEquals(MemorySegment userKey) {
        return InternalKeys.compareBytes(keySegment, 0, keyLength - TableFormat.KEY_TRAILER_SIZE,
                userKey, 0, userKey.byteSize()) == 0;
    }

    private void requireValid() {
        if (!valid) {
            throw new IllegalStateException("block iterator is not positioned on an entry");
        }
    }

    private void seekToRestart(int index) {
        restartIndex = index;
        next = block.restart(index);
        keyLength = 0;
        valid = false;
    }

    /** Decodes the entry at {@link #next}; returns false (and invalidates) at the end of the entries. */
    private boolean parseNext() throws CorruptionException {
        if (next >= block.entriesEnd) {
            valid = false;
            return false;
        }
        valid = false;
        int position = next;
        long limit = block.entriesEnd;

        long shared = Varint.decodeInt(data, position, limit);
        if (shared == Varint.MALFORMED) {
            throw block.corruption("bad shared-prefix length at block offset " + position);
        }
        long cursor = position + Varint.length(shared);
        long unshared = Varint.decodeInt(data, cursor, limit);
        if (unshared == Varint.MALFORMED) {
            throw block.corruption("bad key length at block offset " + position);
        }
        cursor += Varint.length(unshared);
        long valueSize = Varint.decodeInt(data, cursor, limit);
        if (valueSize == Varint.MALFORMED) {
            throw block.corruption("bad value length at block offset " + position);
        }
        cursor += Varint.length(valueSize);

        int sharedBytes = Varint.value(shared);
        int unsharedBytes = Varint.value(unshared);
        int valueBytes = Varint.value(valueSize);
        long newKeyLength = (long) sharedBytes + unsharedBytes;
        long keyEnd = cursor + unsharedBytes;
        long valueEnd = keyEnd + valueBytes;
        if (sharedBytes > keyLength) {
            throw block.corruption("entry at block offset " + position + " shares " + sharedBytes
                    + " bytes with a " + keyLength + "-byte previous key");
        }
        if (newKeyLength < TableFormat.KEY_TRAILER_SIZE) {
            throw block.corruption("key of " + newKeyLength + " bytes at block offset " + position
                    + " is shorter than a trailer");
        }
        if (valueEnd > limit) {
            throw block.corruption("entry at block offset " + position + " runs past the entry area");
        }

        if (newKeyLength > key.length) {
            key = Arrays.copyOf(key, (int) Math.max(newKeyLength, key.length * 2L));
            keySegment = MemorySegment.ofArray(key);
        }
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, cursor, key, sharedBytes, unsharedBytes);
        keyLength = (int) newKeyLength;
        long stored = InternalKeys.readTrailer(key, keyLength - TableFormat.KEY_TRAILER_SIZE);
        if (checkKinds && ValueKind.pointKindOrNull((int) (stored & 0xFF)) == null) {
            throw block.corruption("entry at block offset " + position + " has unknown kind " + (stored & 0xFF));
        }
        trailer = InternalKeys.present(stored, globalSequence);
        current = position;
        next = (int) valueEnd;
        valueOffset = (int) keyEnd;
        valueLength = valueBytes;
        while (restartIndex + 1 < block.restartCount && block.restart(restartIndex + 1) <= current) {
            restartIndex++;
        }
        valid = true;
        return true;
    }

    /** Compares the full key stored at restart point {@code index} with the target. */
    private int compareRestartKey(int index, MemorySegment userKey, long targetTrailer)
            throws CorruptionException {
        int position = block.restart(index);
        long limit = block.entriesEnd;
        long shared = Varint.decodeInt(data, position, limit);
        if (shared == Varint.MALFORMED || Varint.value(shared) != 0) {
            throw block.corruption("restart entry at block offset " + position + " does not hold a full key");
        }
        long cursor = position + Varint.length(shared);
        long unshared = Varint.decodeInt(data, cursor, limit);
        if (unshared == Varint.MALFORMED) {
            throw block.corruption("bad key length at block offset " + position);
        }
        cursor += Varint.length(unshared);
        long valueSize = Varint.decodeInt(data, cursor, limit);
        if (valueSize == Varint.MALFORMED) {
            throw block.corruption("bad value length at block offset " + position);
        }
        cursor += Varint.length(valueSize);
        int keyBytes = Varint.value(unshared);
        if (keyBytes < TableFormat.KEY_TRAILER_SIZE || cursor + keyBytes > limit) {
            throw block.corruption("restart key at block offset " + position + " has bad length " + keyBytes);
        }
        long userKeyEnd = cursor + keyBytes - TableFormat.KEY_TRAILER_SIZE;
        long restartTrailer = InternalKeys.present(InternalKeys.readTrailer(data, userKeyEnd), globalSequence);
        return InternalKeys.compare(data, cursor, userKeyEnd, restartTrailer, userKey, targetTrailer);
    }
}
