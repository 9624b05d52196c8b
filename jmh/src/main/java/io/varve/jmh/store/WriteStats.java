package io.varve.jmh.store;

/**
 * What an engine has written to disk and how long its writers were held back, counted the same way for every
 * engine that can tell: log bytes (the write batches logged; the log's record framing is left out on both
 * sides, because RocksDB's WAL_FILE_BYTES does not count it: 7 bytes per record there, 11 in Varve), table
 * bytes written by flushes, table bytes written by compactions (manifests and info logs are left out on both
 * sides), stall time, and the level-0 table count (how much compaction work is still queued).
 */
public record WriteStats(long walBytes, long flushBytes, long compactionBytes, long stallNanos, long level0Tables) {

    /** Bytes written since {@code start}, and the level-0 count now. */
    public WriteStats since(WriteStats start) {
        return new WriteStats(walBytes - start.walBytes, flushBytes - start.flushBytes,
                compactionBytes - start.compactionBytes, stallNanos - start.stallNanos, level0Tables);
    }

    public long diskBytes() {
        return walBytes + flushBytes + compactionBytes;
    }
}
