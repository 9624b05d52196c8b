package io.varve.core;

/**
 * What {@link Db#open} does when the write-ahead log is damaged. In every mode the recovered state is a
 * prefix of the acknowledged writes, with no holes; the modes differ only in what damage they accept.
 */
public enum WalRecoveryMode {
    /**
     * The default: replay up to the first damaged or incomplete record and keep that prefix; everything after
     * it, in that log file and in later ones, is discarded. A write acknowledged with
     * {@link WriteOptions#SYNC} is never lost to this: only bytes that were never synced can be damaged by a
     * crash, so damage before a synced write means the device corrupted data.
     */
    POINT_IN_TIME,
    /** Accept an incomplete record at the very end of the last log (a torn write); fail on any other damage. */
    TOLERATE_CORRUPTED_TAIL,
    /** Refuse to open on any damage, including a torn tail: {@link io.varve.base.CorruptionException}. */
    ABSOLUTE_CONSISTENCY
}
