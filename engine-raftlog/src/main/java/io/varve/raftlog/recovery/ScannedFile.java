package io.varve.raftlog.recovery;

import io.varve.base.CorruptionException;
import java.nio.file.Path;

/**
 * What scanning one file found: its valid batches (footers only; payloads were skipped) and, if the file is
 * damaged, where and whether the damage runs to the end of the file (the shape of a torn write).
 *
 * <p>A recycled file (written over an older one) normally has bytes after its last batch: the older file's.
 * The scanner tells them from damage (docs/raftlog-format.md, "Recycled files") and reports them as a
 * {@code staleTail}, which is not damage.
 *
 * @param damageReachesEnd whether the damage is a tail: for a file whose header is valid, no batch of the file
 *        follows the damaged one (a torn write, zeros, or junk); for one whose header is not, the file is
 *        shorter than a header or all zeros
 * @param firstBatch where batches start (the header's size)
 * @param staleTail whether the bytes after {@code validLength} are a recycled file's stale (or torn) tail
 */
record ScannedFile(long fileId, Path path, long size, boolean headerValid, ScannedBatches batches,
        long validLength, CorruptionException damage, boolean damageReachesEnd, int firstBatch, boolean staleTail) {

    boolean clean() {
        return damage == null;
    }
}
