package io.varve.core.internal.sst;

import io.varve.core.sst.SstFileWriter;
import io.varve.core.internal.keys.InternalKey;
import java.lang.foreign.MemorySegment;

/**
 * What a table holds, as recorded in its properties block: returned by {@link TableWriter#finish()} and
 * read back by {@link TableReader#properties()}. Immutable; key accessors return copies.
 *
 * <p>Sequences and keys are as stored: a reader opened with a global sequence presents different sequences
 * for its entries, but the properties still describe the file's bytes. {@link #fileSize()} is not stored in
 * the block; it is the size of the file the properties were written to or read from.
 */
public final class TableProperties {

    final long entryCount;
    final long deletionCount;
    final byte[] smallestUserKey;
    final long smallestTrailer;
    final byte[] largestUserKey;
    final long largestTrailer;
    final long smallestSequence;
    final long largestSequence;
    final long rawKeyBytes;
    final long rawValueBytes;
    final long dataBlockCount;
    final long compressedDataBlockCount;
    final long dataBytes;
    final long uncompressedDataBytes;
    final int bloomBitsPerKey;
    final int blockSize;
    final int restartInterval;
    final long creationTimeMillis;
    final String creator;
    /** Null when the writer recorded no column family. */
    final String columnFamily;
    /** Every data block ends in a hash index (format 3). */
    final boolean dataBlockHashIndex;
    final long fileSize;

    TableProperties(long entryCount, long deletionCount, byte[] smallestUserKey, long smallestTrailer,
                    byte[] largestUserKey, long largestTrailer, long smallestSequence, long largestSequence,
                    long rawKeyBytes, long rawValueBytes, long dataBlockCount, long compressedDataBlockCount,
                    long dataBytes, long uncompressedDataBytes, int bloomBitsPerKey, int blockSize,
                    int restartInterval, long creationTimeMillis, String creator, String columnFamily,
                    boolean dataBlockHashIndex, long fileSize) {
        this.entryCount = entryCount;
        this.deletionCount = deletionCount;
        this.smallestUserKey = smallestUserKey.clone();
        this.smallestTrailer = smallestTrailer;
        this.largestUserKey = largestUserKey.clone();
        this.largestTrailer = largestTrailer;
        this.smallestSequence = smallestSequence;
        this.largestSequence = largestSequence;
        this.rawKeyBytes = rawKeyBytes;
        this.rawValueBytes = rawValueBytes;
        this.dataBlockCount = dataBlockCount;
        this.compressedDataBlockCount = compressedDataBlockCount;
        this.dataBytes = dataBytes;
        this.uncompressedDataBytes = uncompressedDataBytes;
        this.bloomBitsPerKey = bloomBitsPerKey;
        this.blockSize = blockSize;
        this.restartInterval = restartInterval;
        this.creationTimeMillis = creationTimeMillis;
        this.creator = creator;
        this.columnFamily = columnFamily;
        this.dataBlockHashIndex = dataBlockHashIndex;
        this.fileSize = fileSize;
    }

    TableProperties withFileSize(long size) {
        return new TableProperties(entryCount, deletionCount, smallestUserKey, smallestTrailer, largestUserKey,
                largestTrailer, smallestSequence, largestSequence, rawKeyBytes, rawValueBytes, dataBlockCount,
                compressedDataBlockCount, dataBytes, uncompressedDataBytes, bloomBitsPerKey, blockSize,
                restartInterval, creationTimeMillis, creator, columnFamily, dataBlockHashIndex, size);
    }

    /** Number of entries (puts and deletes). */
    public long entryCount() {
        return entryCount;
    }

    /** Number of DELETE entries. */
    public long deletionCount() {
        return deletionCount;
    }

    /** The user key of the first entry. */
    public byte[] smallestUserKey() {
        return smallestUserKey.clone();
    }

    /** The trailer of the first entry. */
    public long smallestTrailer() {
        return smallestTrailer;
    }

    /** The user key of the last entry. */
    public byte[] largestUserKey() {
        return largestUserKey.clone();
    }

    /** The trailer of the last entry. */
    public long largestTrailer() {
        return largestTrailer;
    }

    public long smallestSequence() {
        return smallestSequence;
    }

    public long largestSequence() {
        return largestSequence;
    }

    /** Sum over entries of user key length plus the 8-byte trailer. */
    public long rawKeyBytes() {
        return rawKeyBytes;
    }

    public long rawValueBytes() {
        return rawValueBytes;
    }

    public long dataBlockCount() {
        return dataBlockCount;
    }

    /** How many data blocks are stored LZ4-compressed. */
    public long compressedDataBlockCount() {
        return compressedDataBlockCount;
    }

    /** Bytes of data blocks on disk, trailers included. */
    public long dataBytes() {
        return dataBytes;
    }

    /** Bytes of data block contents before compression (trailers excluded). */
    public long uncompressedDataBytes() {
        return uncompressedDataBytes;
    }

    /** 0 when the table has no filter. */
    public int bloomBitsPerKey() {
        return bloomBitsPerKey;
    }

    /** The target data block size the table was written with. */
    public int blockSize() {
        return blockSize;
    }

    public int restartInterval() {
        return restartInterval;
    }

    public long creationTimeMillis() {
        return creationTimeMillis;
    }

    public String creator() {
        return creator;
    }

    /**
     * The column family the table was written for, as {@link SstFileWriter} records it; null for tables
     * written without one (the engine's own flushes and compactions).
     */
    public String columnFamily() {
        return columnFamily;
    }

    /** Whether every data block ends in a hash index of its user keys (a version-3 table). */
    public boolean dataBlockHashIndex() {
        return dataBlockHashIndex;
    }

    public long fileSize() {
        return fileSize;
    }

    @Override
    public String toString() {
        return "TableProperties{entries=" + entryCount + ", deletions=" + deletionCount
                + ", smallest=" + InternalKeys.describe(MemorySegment.ofArray(smallestUserKey), smallestTrailer)
                + ", largest=" + InternalKeys.describe(MemorySegment.ofArray(largestUserKey), largestTrailer)
                + ", sequences=[" + smallestSequence + ", " + largestSequence + "]"
                + ", dataBlocks=" + dataBlockCount + " (" + compressedDataBlockCount + " compressed)"
                + ", dataBytes=" + dataBytes + ", uncompressedDataBytes=" + uncompressedDataBytes
                + ", fileSize=" + fileSize + "}";
    }

    /** The smallest sequence is never above the largest, and both fit the 56-bit sequence space. */
    boolean sequencesConsistent() {
        return smallestSequence >= 0 && smallestSequence <= largestSequence
                && largestSequence <= InternalKey.MAX_SEQUENCE;
    }
}
