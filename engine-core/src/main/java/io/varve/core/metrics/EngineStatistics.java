package io.varve.core.metrics;

import io.varve.core.internal.metrics.EngineMeters;

/**
 * The figures a database publishes as meters, read from the engine's own counters. Plain Java on purpose:
 * the engine keeps these whether or not Micrometer is present, and only {@link EngineMeters} turns them into
 * meters. Every method is cheap and safe to call from any thread at any time, also after the database closed.
 */
public interface EngineStatistics {

    /** Writes that found a stop trigger and waited. */
    long writeStops();

    /** Writes that were paced because a slowdown trigger was reached. */
    long writeSlowdowns();

    /** Time writers spent stopped or paced. */
    long writeStallNanos();

    /** Memtable flushes finished (each wrote at most one table). */
    long flushes();

    /** Time spent in finished flushes: writing the table and installing it in the manifest. */
    long flushNanos();

    /** Table bytes written by flushes. */
    long flushBytesWritten();

    /** Compactions finished, automatic and manual. */
    long compactions();

    /** Time spent in finished compactions. */
    long compactionNanos();

    /** Table bytes compactions read as input. */
    long compactionBytesRead();

    /** Table bytes compactions wrote. */
    long compactionBytesWritten();

    /** Tables compactions moved down a level without rewriting them (counted among finished compactions). */
    long compactionTablesMoved();

    /** Bytes above the level targets, as last computed for the write-stall triggers. */
    long pendingCompactionBytes();

    /** Tables in level 0, as last computed for the write-stall triggers. */
    int level0Tables();

    /** Sealed memtables waiting for their flush. */
    int immutableMemtables();

    /** Arena bytes in use by the mutable and immutable memtables; 0 once the database is closed. */
    long memtableBytes();

    /** Whether there is a block cache; without one the three block-cache figures stay 0. */
    boolean hasBlockCache();

    long blockCacheHits();

    long blockCacheMisses();

    /** Bytes charged to the block cache now, per-entry overhead included. */
    long blockCacheBytes();

    /** Bytes handed to the OS for the write-ahead log (records and their framing). */
    long walBytesWritten();

    /**
     * Batch bytes logged, record framing excluded: what RocksDB's {@code WAL_FILE_BYTES} counts, for comparing
     * the two. Not published as a meter ({@link #walBytesWritten()} is the log's real volume).
     */
    long walBatchBytes();

    /** fsyncs of the write-ahead log made for synced writes (group commit: one may serve many). */
    long walSyncs();

    /** Synced writes acknowledged; divided by {@link #walSyncs()} it is the group-commit factor. */
    long walSyncedCommits();

    /** Read views pinned: one per get and per iterator, plus the engine's own (background work, gauges). */
    long readViewAcquisitions();
}
