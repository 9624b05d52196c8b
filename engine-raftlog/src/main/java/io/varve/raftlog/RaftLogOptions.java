package io.varve.raftlog;

import io.varve.base.fs.DiskFileSystem;
import io.varve.base.fs.FileSystem;
import io.varve.raftlog.index.Location;
import io.varve.raftlog.recovery.RecoveryMode;
import java.util.Objects;

/**
 * Engine settings. Immutable: every {@code withX} returns a modified copy, starting from {@link #defaults()}.
 */
public final class RaftLogOptions {
    public static final long MIN_FILE_SIZE = 4 * 1024;
    /** Positions inside a file must fit the index's 36-bit field. */
    public static final long MAX_FILE_SIZE = Location.MAX_POSITION / 2;

    private long targetFileSize = 128L << 20;
    private int compressionThreshold = 8 << 10;
    private long purgeThreshold = 10L << 30;
    private int purgeRewriteMaxEntries = 4096;
    private double rewriteGarbageRatio = 0.6;
    private RecoveryMode recoveryMode = RecoveryMode.TOLERATE_TAIL_CORRUPTION;
    private int recoveryThreads = 2;
    private int recycledFiles = 4;
    private long maxWriteGroupBytes = 16L << 20;
    private FileSystem fileSystem = DiskFileSystem.INSTANCE;

    private RaftLogOptions() {
    }

    public static RaftLogOptions defaults() {
        return new RaftLogOptions();
    }

    private RaftLogOptions copy() {
        RaftLogOptions o = new RaftLogOptions();
        o.targetFileSize = targetFileSize;
        o.compressionThreshold = compressionThreshold;
        o.purgeThreshold = purgeThreshold;
        o.purgeRewriteMaxEntries = purgeRewriteMaxEntries;
        o.rewriteGarbageRatio = rewriteGarbageRatio;
        o.recoveryMode = recoveryMode;
        o.recoveryThreads = recoveryThreads;
        o.recycledFiles = recycledFiles;
        o.maxWriteGroupBytes = maxWriteGroupBytes;
        o.fileSystem = fileSystem;
        return o;
    }

    /** Size at which a log file is rolled (default 128 MiB); a batch larger than this gets its own file. */
    public RaftLogOptions withTargetFileSize(long bytes) {
        if (bytes < MIN_FILE_SIZE || bytes > MAX_FILE_SIZE) {
            throw new IllegalArgumentException("target file size must be in [" + MIN_FILE_SIZE + ", "
                    + MAX_FILE_SIZE + "]: " + bytes);
        }
        RaftLogOptions o = copy();
        o.targetFileSize = bytes;
        return o;
    }

    /** Entries blocks larger than this are LZ4-compressed (default 8 KiB); use Integer.MAX_VALUE for never. */
    public RaftLogOptions withCompressionThreshold(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("compression threshold must be >= 0: " + bytes);
        }
        RaftLogOptions o = copy();
        o.compressionThreshold = bytes;
        return o;
    }

    /** Append-queue size above which purge rewrites old live data (default 10 GiB). */
    public RaftLogOptions withPurgeThreshold(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("purge threshold must be > 0: " + bytes);
        }
        RaftLogOptions o = copy();
        o.purgeThreshold = bytes;
        return o;
    }

    /**
     * A group with more live entries than this in the append files being purged is reported for compaction
     * instead of being rewritten (default 4096).
     */
    public RaftLogOptions withPurgeRewriteMaxEntries(int entries) {
        if (entries < 0) {
            throw new IllegalArgumentException("purge rewrite max entries must be >= 0: " + entries);
        }
        RaftLogOptions o = copy();
        o.purgeRewriteMaxEntries = entries;
        return o;
    }

    /** Share of dead bytes in the rewrite queue above which purge compacts it (default 0.6; 0: at every purge). */
    public RaftLogOptions withRewriteGarbageRatio(double ratio) {
        if (!(ratio >= 0 && ratio <= 1)) {
            throw new IllegalArgumentException("rewrite garbage ratio must be in [0, 1]: " + ratio);
        }
        RaftLogOptions o = copy();
        o.rewriteGarbageRatio = ratio;
        return o;
    }

    public RaftLogOptions withRecoveryMode(RecoveryMode mode) {
        RaftLogOptions o = copy();
        o.recoveryMode = Objects.requireNonNull(mode, "mode");
        return o;
    }

    /** Threads scanning files in parallel during recovery (default 2). */
    public RaftLogOptions withRecoveryThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("recovery threads must be >= 1: " + threads);
        }
        RaftLogOptions o = copy();
        o.recoveryThreads = threads;
        return o;
    }

    /**
     * How many purged append files to keep to be written over by new ones (default 4; 0 deletes them).
     * Writing over a file's existing blocks makes a synced write's fdatasync cheaper (no metadata to commit)
     * at the cost of keeping that many files' space. Ignored (no file is kept) with
     * {@link RecoveryMode#ABSOLUTE_CONSISTENCY}: a recycled file's stale tail could hide a torn write, which
     * that mode promises to report.
     */
    public RaftLogOptions withRecycledFiles(int files) {
        if (files < 0) {
            throw new IllegalArgumentException("recycled files must be >= 0: " + files);
        }
        RaftLogOptions o = copy();
        o.recycledFiles = files;
        return o;
    }

    /** Most batch bytes one group-commit leader writes before handing over (default 16 MiB). */
    public RaftLogOptions withMaxWriteGroupBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("max write group bytes must be > 0: " + bytes);
        }
        RaftLogOptions o = copy();
        o.maxWriteGroupBytes = bytes;
        return o;
    }

    /** The file system to store the log in (default: the real disk). Tests pass in-memory or faulty ones. */
    public RaftLogOptions withFileSystem(FileSystem fs) {
        RaftLogOptions o = copy();
        o.fileSystem = Objects.requireNonNull(fs, "fs");
        return o;
    }

    public long targetFileSize() {
        return targetFileSize;
    }

    public int compressionThreshold() {
        return compressionThreshold;
    }

    public long purgeThreshold() {
        return purgeThreshold;
    }

    public int purgeRewriteMaxEntries() {
        return purgeRewriteMaxEntries;
    }

    public double rewriteGarbageRatio() {
        return rewriteGarbageRatio;
    }

    public RecoveryMode recoveryMode() {
        return recoveryMode;
    }

    public int recoveryThreads() {
        return recoveryThreads;
    }

    public int recycledFiles() {
        return recycledFiles;
    }

    /** The number of purged files actually kept: {@link #recycledFiles()}, or 0 in absolute-consistency mode. */
    public int effectiveRecycledFiles() {
        return recoveryMode == RecoveryMode.ABSOLUTE_CONSISTENCY ? 0 : recycledFiles;
    }

    public long maxWriteGroupBytes() {
        return maxWriteGroupBytes;
    }

    public FileSystem fileSystem() {
        return fileSystem;
    }

    @Override
    public String toString() {
        return "RaftLogOptions{targetFileSize=" + targetFileSize + ", compressionThreshold=" + compressionThreshold
                + ", purgeThreshold=" + purgeThreshold + ", purgeRewriteMaxEntries=" + purgeRewriteMaxEntries
                + ", rewriteGarbageRatio=" + rewriteGarbageRatio + ", recoveryMode=" + recoveryMode + ", recycledFiles=" + recycledFiles
                + ", recoveryThreads=" + recoveryThreads + ", maxWriteGroupBytes=" + maxWriteGroupBytes
                + ", fileSystem=" + fileSystem.getClass().getSimpleName() + "}";
    }
}
