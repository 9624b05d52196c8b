package io.varve.core.internal.sst;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Builds the contents of one data or index block (see {@link TableFormat}): entries whose keys share a
 * prefix with the previous key store only the differing suffix, and every {@code restartInterval}-th entry
 * stores its whole key and is listed in the restart array, so a reader can binary-search the restarts and
 * then scan at most one interval.
 */
final class BlockBuilder {

    private final int restartInterval;
    private final ByteBuilder buffer;
    /** Null for blocks without a hash index (index blocks, and data blocks of tables without). */
    private final BlockHashIndexBuilder hashIndex;
    private int[] restarts = new int[16];
    private int restartCount;
    private byte[] lastKey = new byte[64];
    private int lastKeyLength;
    private int entriesSinceRestart;
    private int entryCount;
    private boolean finished;

    BlockBuilder(int restartInterval, int expectedSize) {
        this(restartInterval, expectedSize, false);
    }

    /** With {@code hashIndex}, the block ends in a hash index of its user keys (format 3 data blocks). */
    BlockBuilder(int restartInterval, int expectedSize, boolean hashIndex) {
        if (restartInterval < 1) {
            throw new IllegalArgumentException("restart interval must be >= 1: " + restartInterval);
        }
        this.restartInterval = restartInterval;
        this.buffer = new ByteBuilder(expectedSize + expectedSize / 4);
        this.hashIndex = hashIndex ? new BlockHashIndexBuilder() : null;
    }

    boolean isEmpty() {
        return entryCount == 0;
    }

    int entryCount() {
        return entryCount;
    }

    /** The size the block would have if finished now (entries, restart array and any hash index). */
    int estimatedSize() {
        int size = buffer.size() + (restartCount + 1) * TableFormat.RESTART_ENTRY_SIZE;
        return hashIndex == null ? size : size + hashIndex.estimatedSize();
    }

    /** Appends an entry; {@code key[0, keyLength)} must sort after the previous key (the caller checks). */
    void add(byte[] key, int keyLength, MemorySegment value) {
        int valueLength = Math.toIntExact(value.byteSize());
        appendHeaderAndKey(key, keyLength, valueLength);
        buffer.append(value);
    }

    /**
     * Like {@link #add(byte[], int, MemorySegment)} for a block with a hash index: {@code userKeyHash} is
     * {@link KeyHash#hash64} of the key's user key part.
     */
    void add(byte[] key, int keyLength, MemorySegment value, long userKeyHash) {
        add(key, keyLength, value);
        hashIndex.add(userKeyHash, restartCount - 1);
    }

    /** Like {@link #add(byte[], int, MemorySegment)} with a heap value. */
    void add(byte[] key, int keyLength, byte[] value, int valueLength) {
        appendHeaderAndKey(key, keyLength, valueLength);
        buffer.append(value, 0, valueLength);
    }

    private void appendHeaderAndKey(byte[] key, int keyLength, int valueLength) {
        if (finished) {
            throw new IllegalStateException("block already finished");
        }
        int shared = 0;
        if (entriesSinceRestart >= restartInterval || entryCount == 0) {
            addRestart(buffer.size());
            entriesSinceRestart = 0;
        } else {
            int limit = Math.min(lastKeyLength, keyLength);
            int mismatch = Arrays.mismatch(lastKey, 0, limit, key, 0, limit);
            shared = mismatch < 0 ? limit : mismatch;
        }
        int unshared = keyLength - shared;
        buffer.appendVarint(shared);
        buffer.appendVarint(unshared);
        buffer.appendVarint(valueLength);
        buffer.append(key, shared, unshared);

        if (lastKey.length < keyLength) {
            lastKey = Arrays.copyOf(lastKey, Math.max(keyLength, lastKey.length * 2));
        }
        System.arraycopy(key, shared, lastKey, shared, unshared);
        lastKeyLength = keyLength;
        entriesSinceRestart++;
        entryCount++;
    }

    private void addRestart(int offset) {
        if (restartCount == restarts.length) {
            restarts = Arrays.copyOf(restarts, restartCount * 2);
        }
        restarts[restartCount++] = offset;
    }

    /**
     * Appends the restart array and count and returns the finished contents, which stay valid until
     * {@link #reset()}.
     */
    ByteBuilder finish() {
        if (!finished) {
            for (int i = 0; i < restartCount; i++) {
                buffer.appendFixed32(restarts[i]);
            }
            buffer.appendFixed32(restartCount);
            if (hashIndex != null) {
                hashIndex.appendTo(buffer, restartCount);
            }
            finished = true;
        }
        return buffer;
    }

    void reset() {
        buffer.clear();
        restartCount = 0;
        lastKeyLength = 0;
        entriesSinceRestart = 0;
        entryCount = 0;
        finished = false;
        if (hashIndex != null) {
            hashIndex.reset();
        }
    }
}
