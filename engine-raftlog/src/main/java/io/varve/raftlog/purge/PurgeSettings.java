package io.varve.raftlog.purge;

/**
 * Purge tuning, taken from the engine options.
 *
 * @param purgeThreshold append-queue size above which purge rewrites old live entries and reports groups
 * @param rewriteMaxEntries a group with more live entries than this in the files being purged is not
 *     rewritten but reported, for the caller to compact
 * @param rewriteGarbageRatio rewrite-queue share of dead bytes above which the rewrite queue is compacted
 * @param rewriteCompactMinBytes rewrite-queue size below which it is never compacted
 * @param rewriteBatchBytes target size of the batches purge writes
 * @param compressionThreshold entries-block size above which purge's batches are compressed
 */
public record PurgeSettings(long purgeThreshold, int rewriteMaxEntries, double rewriteGarbageRatio,
        long rewriteCompactMinBytes, int rewriteBatchBytes, int compressionThreshold) {
}
