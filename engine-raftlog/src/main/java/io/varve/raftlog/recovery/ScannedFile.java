package io.varve.raftlog.recovery;

import io.varve.core.base.CorruptionException;
import java.nio.file.Path;

/**
 * What scanning one file found: its valid batches (footers only; payloads were skipped) and, if the file is
 * damaged, where and whether the damage runs to the end of the file (the shape of a torn write).
 */
record ScannedFile(long fileId, Path path, long size, boolean headerValid, ScannedBatches batches,
        long validLength, CorruptionException damage, boolean damageReachesEnd) {

    boolean clean() {
        return damage == null;
    }
}
