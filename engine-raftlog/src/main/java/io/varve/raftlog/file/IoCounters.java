package io.varve.raftlog.file;

import java.util.concurrent.atomic.LongAdder;

/** What the engine did to the device, counted at the point it did it. */
public final class IoCounters {
    public final LongAdder appendBytes = new LongAdder();
    public final LongAdder rewriteBytes = new LongAdder();
    public final LongAdder dataSyncs = new LongAdder();
    public final LongAdder directorySyncs = new LongAdder();
    public final LongAdder filesCreated = new LongAdder();
    /** New files that were purged ones written over instead of created. */
    public final LongAdder filesRecycled = new LongAdder();
    public final LongAdder filesDeleted = new LongAdder();
    public final LongAdder purgeRewrites = new LongAdder();
    public final LongAdder rewriteQueueCompactions = new LongAdder();
    public final LongAdder batchesWritten = new LongAdder();
    public final LongAdder blockReads = new LongAdder();
    public final LongAdder blockCacheHits = new LongAdder();

    void written(LogQueue queue, long bytes) {
        (queue == LogQueue.APPEND ? appendBytes : rewriteBytes).add(bytes);
    }
}
