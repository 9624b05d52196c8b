package io.varve.core.sst;

import io.varve.core.internal.sst.TableFormat;
import io.varve.core.internal.sst.TableWriter;
import java.util.Arrays;
import java.util.Objects;

/**
 * How a {@link TableWriter} lays out a table. Immutable: the {@code with...} methods return validated copies.
 * Readers need none of this; everything they need is in the file.
 */
public final class TableOptions {

    private static final TableOptions DEFAULTS = new TableOptions(TableFormat.DEFAULT_BLOCK_SIZE,
            TableFormat.DEFAULT_RESTART_INTERVAL, TableFormat.DEFAULT_BLOOM_BITS_PER_KEY, true, null, false);

    private final int blockSize;
    private final int restartInterval;
    private final int bloomBitsPerKey;
    private final boolean compression;
    /** Whether each level's tables may be compressed, deeper levels following the last; null: {@code compression}. */
    private final boolean[] compressionPerLevel;
    private final boolean dataBlockHashIndex;

    private TableOptions(int blockSize, int restartInterval, int bloomBitsPerKey, boolean compression,
                         boolean[] compressionPerLevel, boolean dataBlockHashIndex) {
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
        this.compressionPerLevel = compressionPerLevel;
        this.dataBlockHashIndex = dataBlockHashIndex;
    }

    /** 4 KiB blocks, a restart every 16 entries, 10 bloom bits per key, LZ4 compression on, no block hash index. */
    public static TableOptions defaults() {
        return DEFAULTS;
    }

    /** Target uncompressed size of a data block; a block is closed once it reaches this size. */
    public TableOptions withBlockSize(int bytes) {
        return new TableOptions(bytes, restartInterval, bloomBitsPerKey, compression, compressionPerLevel, dataBlockHashIndex);
    }

    /** Entries between full (uncompressed-prefix) keys in a data block. */
    public TableOptions withRestartInterval(int entries) {
        return new TableOptions(blockSize, entries, bloomBitsPerKey, compression, compressionPerLevel, dataBlockHashIndex);
    }

    /** Bloom filter budget; 0 writes no filter. */
    public TableOptions withBloomBitsPerKey(int bits) {
        return new TableOptions(blockSize, restartInterval, bits, compression, compressionPerLevel, dataBlockHashIndex);
    }

    /**
     * Whether data blocks may be LZ4-compressed (only when that saves at least 12.5%), at every level: replaces
     * any {@link #withCompressionPerLevel per-level setting}.
     */
    public TableOptions withCompression(boolean enabled) {
        return new TableOptions(blockSize, restartInterval, bloomBitsPerKey, enabled, null, dataBlockHashIndex);
    }

    /**
     * Whether data blocks may be compressed, level by level: entry {@code i} is for level {@code i}'s tables,
     * and levels past the last entry follow the last entry (RocksDB's {@code compression_per_level}). The
     * common setting {@code (false, true)} leaves level 0 uncompressed: a flush then spends no time
     * compressing, and the compaction out of level 0, which rewrites that data anyway, compresses it. A table
     * moved down a level without being rewritten keeps its blocks, so the engine moves tables that way only
     * between levels with the same setting.
     */
    public TableOptions withCompressionPerLevel(boolean... levels) {
        if (levels.length == 0) {
            throw new IllegalArgumentException("compression per level needs at least one level");
        }
        return new TableOptions(blockSize, restartInterval, bloomBitsPerKey, levels[0], levels.clone(), dataBlockHashIndex);
    }

    /**
     * Whether each data block ends in a hash index of its user keys (about one byte per key), so a point
     * lookup goes straight to the restart interval holding its key instead of binary-searching the block's
     * restarts (RocksDB's {@code kDataBlockBinaryAndHash}). Such tables are format version 3, which builds
     * without hash indexes refuse; tables written without it stay version 2. Off by default.
     */
    public TableOptions withDataBlockHashIndex(boolean enabled) {
        return new TableOptions(blockSize, restartInterval, bloomBitsPerKey, compression, compressionPerLevel, enabled);
    }

    /** Whether tables written to {@code level} may compress their data blocks. */
    public boolean compression(int level) {
        if (level < 0) {
            throw new IllegalArgumentException("negative level: " + level);
        }
        if (compressionPerLevel == null) {
            return compression;
        }
        return compressionPerLevel[Math.min(level, compressionPerLevel.length - 1)];
    }

    /** These options as they apply to a table written to {@code level}: {@link #compression()} is that level's. */
    public TableOptions forLevel(int level) {
        if (compressionPerLevel == null) {
            return this;
        }
        return new TableOptions(blockSize, restartInterval, bloomBitsPerKey, compression(level), null, dataBlockHashIndex);
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

    /**
     * Whether data blocks may be compressed in a table written with these options as they are; with a
     * per-level setting, level 0's (use {@link #forLevel} for another level).
     */
    public boolean compression() {
        return compression;
    }

    /** Whether data blocks carry a hash index of their keys ({@link #withDataBlockHashIndex}). */
    public boolean dataBlockHashIndex() {
        return dataBlockHashIndex;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableOptions other && blockSize == other.blockSize
                && restartInterval == other.restartInterval && bloomBitsPerKey == other.bloomBitsPerKey
                && compression == other.compression
                && Arrays.equals(compressionPerLevel, other.compressionPerLevel)
                && dataBlockHashIndex == other.dataBlockHashIndex;
    }

    @Override
    public int hashCode() {
        return Objects.hash(blockSize, restartInterval, bloomBitsPerKey, compression,
                Arrays.hashCode(compressionPerLevel), dataBlockHashIndex);
    }

    @Override
    public String toString() {
        return "TableOptions{blockSize=" + blockSize + ", restartInterval=" + restartInterval
                + ", bloomBitsPerKey=" + bloomBitsPerKey + ", compression="
                + (compressionPerLevel == null ? compression : Arrays.toString(compressionPerLevel))
                + ", dataBlockHashIndex=" + dataBlockHashIndex + "}";
    }
}
