package io.varve.raftlog;

/**
 * Counters since the engine was opened, and current sizes.
 *
 * @param appendBytesWritten bytes written to append-queue files (file headers included)
 * @param rewriteBytesWritten bytes written to rewrite-queue files by purge
 * @param dataSyncs fdatasync calls on log files
 * @param directorySyncs fsync calls on the directory
 * @param batchesWritten batches appended to either queue; writers' batches merged by group commit count once
 * @param appendFiles live append-queue files
 * @param rewriteFiles live rewrite-queue files
 * @param liveBytes bytes in live log files
 * @param groups groups with an entry or a key
 * @param indexedEntries entries in the index
 * @param indexHeapBytes the index's own accounting of its heap footprint
 * @param queuedWrites writes waiting for the current group commit to finish
 * @param filesDeleted log files purge removed from the log (deleted, or kept to be written over)
 * @param purgeRewrites purges that wrote copies and a snapshot to the rewrite queue
 * @param rewriteQueueCompactions purges that compacted the rewrite queue
 * @param filesRecycled new append files that were purged ones written over instead of created
 */
public record EngineStats(long appendBytesWritten, long rewriteBytesWritten, long dataSyncs, long directorySyncs,
        long batchesWritten, long appendFiles, long rewriteFiles, long liveBytes, long groups, long indexedEntries,
        long indexHeapBytes, int queuedWrites, long filesDeleted, long purgeRewrites,
        long rewriteQueueCompactions, long filesRecycled) {

    /** Heap bytes per indexed entry, all per-group overhead included. */
    public double indexBytesPerEntry() {
        return indexedEntries == 0 ? 0 : (double) indexHeapBytes / indexedEntries;
    }
}
