package io.varve.core;

import io.varve.core.fs.DiskFileSystem;
import io.varve.core.fs.FileSystem;
import io.varve.core.sst.TableOptions;

import java.util.Objects;

/**
 * How a database is opened. Immutable: start from {@link #defaults()} and use the {@code with} methods, each
 * returning a changed copy. Every value is validated where it is set, so a bad option fails at the call that
 * set it.
 */
public final class Options {

    private static final long MIN_WRITE_BUFFER = 64L << 10;
    private static final long MAX_WRITE_BUFFER = 1L << 30;

    private long writeBufferSize = 64L << 20;
    private WalRecoveryMode walRecovery = WalRecoveryMode.POINT_IN_TIME;
    private boolean unorderedWrite;
    private FileSystem fileSystem = DiskFileSystem.INSTANCE;
    private TableOptions tableOptions = TableOptions.defaults();
    private long blockCacheSize = 32L << 20;

    private Options() {
    }

    private Options copy() {
        Options o = new Options();
        o.writeBufferSize = writeBufferSize;
        o.walRecovery = walRecovery;
        o.unorderedWrite = unorderedWrite;
        o.fileSystem = fileSystem;
        o.tableOptions = tableOptions;
        o.blockCacheSize = blockCacheSize;
        return o;
    }

    /**
     * 64 MiB memtables, point-in-time WAL recovery, ordered writes, the real file system, 4 KiB table
     * blocks with lz4 where it saves space, 10-bit bloom filters, a 32 MiB block cache.
     */
    public static Options defaults() {
        return new Options();
    }

    /** Bytes of writes a memtable takes before it becomes immutable and a new one starts (64 KiB .. 1 GiB). */
    public Options withWriteBufferSize(long bytes) {
        if (bytes < MIN_WRITE_BUFFER || bytes > MAX_WRITE_BUFFER) {
            throw new IllegalArgumentException("writeBufferSize must be in [" + MIN_WRITE_BUFFER + ", "
                    + MAX_WRITE_BUFFER + "]: " + bytes);
        }
        Options o = copy();
        o.writeBufferSize = bytes;
        return o;
    }

    public Options withWalRecovery(WalRecoveryMode mode) {
        Options o = copy();
        o.walRecovery = Objects.requireNonNull(mode, "walRecovery");
        return o;
    }

    /**
     * Publishes each batch to readers as soon as it is in the log, instead of in log order once every earlier
     * batch is in the memtable. Higher write throughput under many writers; a writer still reads its own
     * writes once {@code write} returns, but readers may see part of another writer's batch, and a snapshot
     * may see writes with sequence numbers at or below it appear later. See docs/architecture.md.
     */
    public Options withUnorderedWrite(boolean enabled) {
        Options o = copy();
        o.unorderedWrite = enabled;
        return o;
    }

    /** The storage to use; tests pass the in-memory or fault-injecting file systems. */
    public Options withFileSystem(FileSystem fs) {
        Options o = copy();
        o.fileSystem = Objects.requireNonNull(fs, "fileSystem");
        return o;
    }

    /** Block size, restart interval, bloom bits per key and compression of the tables this database writes. */
    public Options withTableOptions(TableOptions options) {
        Options o = copy();
        o.tableOptions = Objects.requireNonNull(options, "tableOptions");
        return o;
    }

    /** Bytes of decompressed blocks to cache (0 disables the cache; uncompressed blocks are read in place). */
    public Options withBlockCacheSize(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("blockCacheSize must be >= 0: " + bytes);
        }
        Options o = copy();
        o.blockCacheSize = bytes;
        return o;
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

    public TableOptions tableOptions() {
        return tableOptions;
    }

    public long blockCacheSize() {
        return blockCacheSize;
    }
}
