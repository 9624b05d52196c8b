package io.varve.core.sst;

import io.varve.core.internal.sst.TableFormat;
import io.varve.core.internal.sst.TableWriter;
import java.util.Objects;

/**
 * How a {@link TableWriter} lays out a table. Immutable: the {@code with...} methods return validated copies.
 * Readers need none of this; everything they need is in the file.
 */
public final class TableOptions {

    private static final TableOptions DEFAULTS = new TableOptions(TableFormat.DEFAULT_BLOCK_SIZE,
            TableFormat.DEFAULT_RESTART_INTERVAL, TableFormat.DEFAULT_BLOOM_BITS_PER_KEY, true, false);

    private final int blockSize;
    private final int restartInterval;
    private final int bloomBitsPerKey;
    private final boolean compression;
    private final boolean dataBlockHashIndex;

    private TableOptions(int blockSize, int restartInterval, int bloomBitsPerKey, boolean compression,
                         boolean dataBlockHashIndex) {
        if (blockSize < 1 || blockSize > TableFormat.MAX_TARGET_BLOCK_SIZE) {
            throw new IllegalArgumentException("block size must be in [1, " + TableFormat.MAX_TARGET_BLOCK_SIZE
                    + "]: " + blockSize);
        }
        if (restartInterval < 1 || restartInterval > 1 << 16) {
            throw new IllegalArgumentException("restart interval must be in [1, 65536]: " + restartInterval);
        }
        if (bloomBitsPerKey < 0 || bloomBitsPerKey > TableFormat.MAX_BLOOM_BITS_PER_KEY) {
            throw new IllegalArgumentException("bloom bits per key must be in [0, "
                    + TableFormat.MAX_BLOOM_BITS_PER_KEY + "]: " + bloomBitsPerKey);
        }
        this.blockSize = blockSize;
        this.restartInterval = restartInterval;
        this.bloomBitsPerKey = bloomBitsPerKey;
        this.compression = compression;
        this.dataBlockHashIndex = dataBlockHashIndex;
    }

    /** 4 KiB blocks, a restart every 16 entries, 10 bloom bits per key, LZ4 compression on, no block hash index. */
    public static TableOptions defaults() {
        return DEFAULTS;
    }

    /** Target uncompressed size of a data block; a block is closed once it reaches this size. */
    public TableOptions withBlockSize(int bytes) {
        return new TableOptions(bytes, restartInterval, bloomBitsPerKey, compression, dataBlockHashIndex);
    }

    /** Entries between full (uncompressed-prefix) keys in a data block. */
    public TableOptions withRestartInterval(int entries) {
        return new TableOptions(blockSize, entries, bloomBitsPerKey, compression, dataBlockHashIndex);
    }

    /** Bloom filter budget; 0 writes no filter. */
    public TableOptions withBloomBitsPerKey(int bits) {
        return new TableOptions(blockSize, restartInterval, bits, compression, dataBlockHashIndex);
    }

    /** Whether data blocks may be LZ4-compressed (only when that saves at least 12.5%). */
    public TableOptions withCompression(boolean enabled) {
        return new TableOptions(blockSize, restartInterval, bloomBitsPerKey, enabled, dataBlockHashIndex);
    }

    /**
     * Whether each data block ends in a hash index of its user keys (about one byte per key), so a point
     * lookup goes straight to the restart interval holding its key instead of binary-searching the block's
     * restarts (RocksDB's {@code kDataBlockBinaryAndHash}). Such tables are format version 3, which builds
     * without hash indexes refuse; tables written without it stay version 2. Off by default.
     */
    public TableOptions withDataBlockHashIndex(boolean enabled) {
        return new TableOptions(blockSize, restartInterval, bloomBitsPerKey, compression, enabled);
    }

    public int blockSize() {
        return blockSize;
    }

    public int restartInterval() {
        return restartInterval;
    }

    public int bloomBitsPerKey() {
        return bloomBitsPerKey;
    }

    public boolean compression() {
        return compression;
    }

    public boolean dataBlockHashIndex() {
        return dataBlockHashIndex;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableOptions other && blockSize == other.blockSize
                && restartInterval == other.restartInterval && bloomBitsPerKey == other.bloomBitsPerKey
                && compression == other.compression && dataBlockHashIndex == other.dataBlockHashIndex;
    }

    @Override
    public int hashCode() {
        return Objects.hash(blockSize, restartInterval, bloomBitsPerKey, compression, dataBlockHashIndex);
    }

    @Override
    public String toString() {
        return "TableOptions{blockSize=" + blockSize + ", restartInterval=" + restartInterval
                + ", bloomBitsPerKey=" + bloomBitsPerKey + ", compression=" + compression
                + ", dataBlockHashIndex=" + dataBlockHashIndex + "}";
    }
}
