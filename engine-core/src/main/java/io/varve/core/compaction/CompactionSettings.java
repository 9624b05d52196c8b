package io.varve.core.compaction;

/**
 * The shape of the leveled tree: when level 0 is compacted, how big each deeper level may grow, how big
 * output tables are. Level n (n >= 1) targets {@code maxBytesForLevelBase * multiplier^(n-1)} bytes.
 */
public record CompactionSettings(int level0FileTrigger, long maxBytesForLevelBase, int levelSizeMultiplier,
                                 long targetFileSize) {

    public CompactionSettings {
        if (level0FileTrigger < 1) {
            throw new IllegalArgumentException("level0FileTrigger must be >= 1: " + level0FileTrigger);
        }
        if (maxBytesForLevelBase < 1 << 16) {
            throw new IllegalArgumentException("maxBytesForLevelBase must be >= 64 KiB: " + maxBytesForLevelBase);
        }
        if (levelSizeMultiplier < 2) {
            throw new IllegalArgumentException("levelSizeMultiplier must be >= 2: " + levelSizeMultiplier);
        }
        if (targetFileSize < 1 << 12) {
            throw new IllegalArgumentException("targetFileSize must be >= 4 KiB: " + targetFileSize);
        }
    }

    /** RocksDB's defaults: compact level 0 at 4 files, 256 MiB level 1, x10 per level, 64 MiB tables. */
    public static CompactionSettings defaults() {
        return new CompactionSettings(4, 256L << 20, 10, 64L << 20);
    }

    public long targetBytes(int level) {
        long target = maxBytesForLevelBase;
        for (int i = 1; i < level; i++) {
            target = target > Long.MAX_VALUE / levelSizeMultiplier ? Long.MAX_VALUE : target * levelSizeMultiplier;
        }
        return target;
    }
}
