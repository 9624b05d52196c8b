package io.varve.raftlog.recovery;

import io.varve.core.base.CorruptionException;
import io.varve.raftlog.format.BatchItem;
import java.nio.file.Path;
import java.util.List;

/**
 * What scanning one file found: its valid batches (footer items only; payloads were skipped) and, if the
 * file is damaged, where and whether the damage runs to the end of the file (the shape of a torn write).
 */
record ScannedFile(long fileId, Path path, long size, boolean headerValid, List<Batch> batches,
        long validLength, CorruptionException damage, boolean damageReachesEnd) {

    record Batch(long position, long end, List<BatchItem> items, long entryCount) {
        boolean commits() {
            return !items.isEmpty() && items.getLast() instanceof BatchItem.Commit;
        }
    }

    boolean clean() {
        return damage == null;
    }
}
