package io.varve.core.internal.sst;

import io.varve.base.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The uncompressed contents of one data or index block, whose restart array has been checked, plus where
 * the block is stored so that any damage found later can be reported against the right file and offset.
 *
 * <p>A data block of a version-3 table also ends in a hash index ({@link BlockHashIndexBuilder}); its buckets
 * are checked at parse, so every bucket names a restart point of this block or is a marker.
 *
 * <p>{@link #contents} is either a slice of the table's mapping (valid while the table reader is retained)
 * or a heap array produced by decompression (valid as long as it is referenced). Immutable.
 */
final class Block {

    static final ValueLayout.OfInt FIXED32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort BUCKET_COUNT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    final MemorySegment contents;
    /** Entries occupy {@code [0, entriesEnd)}; the restart array starts here. */
    final int entriesEnd;
    final int restartCount;
    final Path file;
    /** File offset of the block's stored contents: the offset named in corruption reports. */
    final long fileOffset;
    /** Where the hash index's buckets start, and how many there are (0: no hash index). */
    private final int bucketsStart;
    private final int bucketCount;

    private Block(MemorySegment contents, int entriesEnd, int restartCount, Path file, long fileOffset,
                  int bucketsStart, int bucketCount) {
        this.contents = contents;
        this.entriesEnd = entriesEnd;
        this.restartCount = restartCount;
        this.file = file;
        this.fileOffset = fileOffset;
        this.bucketsStart = bucketsStart;
        this.bucketCount = bucketCount;
    }

    /**
     * Validates the block's trailing restart array: the count fits, offsets are strictly increasing, start at
     * 0 and point inside the entry area. Entries themselves are validated as they are decoded.
     */
    static Block parse(MemorySegment contents, Path file, long fileOffset) throws CorruptionException {
        return parse(contents, contents.byteSize(), file, fileOffset, 0, 0);
    }

    /**
     * Validates a data block that ends in a hash index: the bucket count fits before it, a block with buckets
     * has at most {@link TableFormat#HASH_INDEX_MAX_RESTARTS} restart points, and every bucket names one of
     * them or is a marker; then the block before the index as {@link #parse} does.
     */
    static Block parseWithHashIndex(MemorySegment contents, Path file, long fileOffset) throws CorruptionException {
        long size = contents.byteSize();
        if (size < TableFormat.HASH_INDEX_COUNT_SIZE + TableFormat.RESTART_ENTRY_SIZE) {
            throw new CorruptionException(file, fileOffset, "block of " + size + " bytes is too short for a "
                    + "restart count and a hash index");
        }
        int buckets = Short.toUnsignedInt(contents.get(BUCKET_COUNT, size - TableFormat.HASH_INDEX_COUNT_SIZE));
        long plainSize = size - TableFormat.HASH_INDEX_COUNT_SIZE - buckets;
        if (plainSize < TableFormat.RESTART_ENTRY_SIZE) {
            throw new CorruptionException(file, fileOffset, "hash index of " + buckets + " buckets does not fit a "
                    + size + "-byte block");
        }
        Block block = parse(contents, plainSize, file, fileOffset, (int) plainSize, buckets);
        if (buckets > 0 && block.restartCount > TableFormat.HASH_INDEX_MAX_RESTARTS) {
            throw new CorruptionException(file, fileOffset, "hash index over " + block.restartCount
                    + " restart points, more than a bucket can name");
        }
        for (int i = 0; i < buckets; i++) {
            int bucket = Byte.toUnsignedInt(contents.get(ValueLayout.JAVA_BYTE, plainSize + i));
            if (bucket >= block.restartCount && bucket != TableFormat.HASH_BUCKET_COLLISION
                    && bucket != TableFormat.HASH_BUCKET_EMPTY) {
                throw new CorruptionException(file, fileOffset, "hash bucket " + i + " (block offset "
                        + (plainSize + i) + ") names restart point " + bucket + " of " + block.restartCount);
            }
        }
        return block;
    }

    private static Block parse(MemorySegment contents, long size, Path file, long fileOffset, int bucketsStart,
                               int bucketCount) throws CorruptionException {
        if (size < TableFormat.RESTART_ENTRY_SIZE || size > TableFormat.MAX_BLOCK_CONTENTS_SIZE) {
            throw new CorruptionException(file, fileOffset, "block of impossible size " + size);
        }
        int count = contents.get(FIXED32, size - TableFormat.RESTART_ENTRY_SIZE);
        long maxCount = (size - TableFormat.RESTART_ENTRY_SIZE) / TableFormat.RESTART_ENTRY_SIZE;
        if (count < 0 || count > maxCount) {
            throw new CorruptionException(file, fileOffset, "restart count " + count + " does not fit a "
                    + size + "-byte block");
        }
        int entriesEnd = (int) (size - (long) (count + 1) * TableFormat.RESTART_ENTRY_SIZE);
        if (count == 0 && entriesEnd != 0) {
            throw new CorruptionException(file, fileOffset, "block has entries but no restart points");
        }
        int previous = -1;
        for (int i = 0; i < count; i++) {
            int restart = contents.get(FIXED32, entriesEnd + (long) i * TableFormat.RESTART_ENTRY_SIZE);
            if (restart <= previous || restart >= entriesEnd || (i == 0 && restart != 0)) {
                throw new CorruptionException(file, fileOffset, "restart point " + i + " has bad offset "
                        + restart);
            }
            previous = restart;
        }
        return new Block(contents, entriesEnd, count, file, fileOffset, bucketsStart, bucketCount);
    }

    /** The offset of restart point {@code i}, already validated. */
    int restart(int i) {
        return contents.get(FIXED32, entriesEnd + (long) i * TableFormat.RESTART_ENTRY_SIZE);
    }

    /**
     * The restart interval the block's hash index gives for a user key with hash {@code userKeyHash}, or -1
     * when the block has no index or the key's bucket is a marker (empty or collision).
     */
    int restartHint(long userKeyHash) {
        int bucket = hashBucket(userKeyHash);
        return bucket < restartCount ? bucket : -1;
    }

    /**
     * The value of the hash-index bucket of a user key with hash {@code userKeyHash}: a restart index,
     * {@link TableFormat#HASH_BUCKET_COLLISION} or {@link TableFormat#HASH_BUCKET_EMPTY}; -1 without an index.
     */
    int hashBucket(long userKeyHash) {
        if (bucketCount == 0) {
            return -1;
        }
        int bucket = BlockHashIndexBuilder.bucket(userKeyHash, bucketCount);
        return Byte.toUnsignedInt(contents.get(ValueLayout.JAVA_BYTE, bucketsStart + (long) bucket));
    }

    /** Whether the block ends in a hash index with at least one bucket. */
    boolean hasHashIndex() {
        return bucketCount > 0;
    }

    long byteSize() {
        return contents.byteSize();
    }

    CorruptionException corruption(String detail) {
        return new CorruptionException(file, fileOffset, detail);
    }
}
