package io.varve.core;

import io.varve.core.fs.DiskFileSystem;
import io.varve.core.fs.FileSystem;

import java.util.Objects;

/**
 * How a database is opened. Immutable: start from {@link #defaults()} and use the {@code with} methods, each
 * returning a copy. Every value is validated where it is set, so a bad option fails at the call that set it.
 */
public final class Options {

    private static final long MIN_WRITE_BUFFER = 64L << 10;
    private static final long MAX_WRITE_BUFFER = 1L << 30;

    private final long writeBufferSize;
    private final WalRecoveryMode walRecovery;
    private final boolean unorderedWrite;
    private final FileSystem fileSystem;

    private Options(long writeBufferSize, WalRecoveryMode walRecovery, boolean unorderedWrite, FileSystem fileSystem) {
        this.writeBufferSize = writeBufferSize;
        this.walRecovery = walRecovery;
        this.unorderedWrite = unorderedWrite;
        this.fileSystem = fileSystem;
    }

    /** 64 MiB memtables, point-in-time WAL recovery, ordered writes, the real file system. */
    public static Options defaults() {
        return new Options(64L << 20, WalRecoveryMode.POINT_IN_TIME, false, DiskFileSystem.INSTANCE);
    }

    /** Bytes of writes a memtable takes before it becomes immutable and a new one starts (64 KiB .. 1 GiB). */
    public Options withWriteBufferSize(long bytes) {
        if (bytes < MIN_WRITE_BUFFER || bytes > MAX_WRITE_BUFFER) {
            throw new IllegalArgumentException("writeBufferSize must be in [" + MIN_WRITE_BUFFER + ", "
                    + MAX_WRITE_BUFFER + "]: " + bytes);
        }
        return new Options(bytes, walRecovery, unorderedWrite, fileSystem);
    }

    public Options withWalRecovery(WalRecoveryMode mode) {
        return new Options(writeBufferSize, Objects.requireNonNull(mode, "walRecovery"), unorderedWrite, fileSystem);
    }

    /**
     * Publishes each batch to readers as soon as it is in the log, instead of in log order once every earlier
     * batch is in the memtable. Higher write throughput under many writers; a writer still reads its own
     * writes once {@code write} returns, but readers may see part of another writer's batch, and a snapshot
     * may see writes with sequence numbers at or below it appear later. See docs/architecture.md.
     */
    public Options withUnorderedWrite(boolean enabled) {
        return new Options(writeBufferSize, walRecovery, enabled, fileSystem);
    }

    /** The storage to use; tests pass the in-memory or fault-injecting file systems. */
    public Options withFileSystem(FileSystem fs) {
        return new Options(writeBufferSize, walRecovery, unorderedWrite, Objects.requireNonNull(fs, "fileSystem"));
    }

    public long writeBufferSize() {
        return writeBufferSize;
    }

    public WalRecoveryMode walRecovery() {
        return walRecovery;
    }

    public boolean unorderedWrite() {
        return unorderedWrite;
    }

    public FileSystem fileSystem() {
        return fileSystem;
    }
}
