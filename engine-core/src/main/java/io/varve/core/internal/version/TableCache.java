package io.varve.core.internal.version;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.internal.sst.TableReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * Open table readers by file number. A table is opened (mapped) on first use and stays open until it
 * becomes obsolete and the reclaimer evicts it; the cache holds one reference to each reader, and every
 * user takes its own for the duration of a read ({@link #acquire}), so eviction never unmaps a table under
 * a reader.
 */
public final class TableCache implements AutoCloseable {

    private final FileSystem fs;
    private final LongFunction<Path> pathOf;
    private final BlockCache blockCache;
    private final boolean verifyEveryBlockLoad;
    private final ConcurrentHashMap<Long, TableReader> open = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public TableCache(FileSystem fs, LongFunction<Path> pathOf, BlockCache blockCache) {
        this(fs, pathOf, blockCache, false);
    }

    /** @param verifyEveryBlockLoad see {@link io.varve.core.Options#withVerifyEveryBlockLoad} */
    public TableCache(FileSystem fs, LongFunction<Path> pathOf, BlockCache blockCache, boolean verifyEveryBlockLoad) {
        this.verifyEveryBlockLoad = verifyEveryBlockLoad;
        this.fs = fs;
        this.pathOf = pathOf;
        this.blockCache = blockCache;
    }

    /** A reader for {@code table} with a reference owned by the caller, who must release it. */
    public TableReader acquire(TableMeta table) {
        checkOpen();
        while (true) {
            // A plain get first: computeIfAbsent costs more even when the table is already open.
            TableReader reader = open.get(table.fileNumber());
            if (reader == null) {
                reader = open.computeIfAbsent(table.fileNumber(), n -> openReader(table));
            }
            try {
                reader.retain();
            } catch (IllegalStateException evictedMeanwhile) {
                open.remove(table.fileNumber(), reader);
                continue;
            }
            if (closed) {
                // close() may have emptied the map before this reader entered it: nobody else will release it.
                reader.release();
                evict(table.fileNumber());
                throw closedException();
            }
            return reader;
        }
    }

    private static IllegalStateException closedException() {
        return new IllegalStateException("database is closed");
    }

    private void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }

    /**
     * Like {@link #acquire}, but only if the table is already open: never opens or maps a file, so a caller
     * that must not wait on disk (a cached-only read) can use it. Null when the table is not open.
     */
    public TableReader acquireIfOpen(TableMeta table) {
        checkOpen();
        TableReader reader = open.get(table.fileNumber());
        if (reader == null) {
            return null;
        }
        try {
            reader.retain();
            return reader;
        } catch (IllegalStateException evictedMeanwhile) {
            return null;
        }
    }

    private TableReader openReader(TableMeta table) {
        Path path = pathOf.apply(table.fileNumber());
        ReadableFile file = null;
        try {
            file = fs.openReadable(path);
            long global = table.globalSequence() >= 0 ? table.globalSequence() : TableReader.NO_GLOBAL_SEQUENCE;
            return TableReader.open(file, path, table.fileNumber(), blockCache, global, verifyEveryBlockLoad);
        } catch (IOException e) {
            if (file != null) {
                try {
                    file.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw new UncheckedIOException(e);
        }
    }

    /** Drops the cache's reference to a table that no version uses any more. */
    public void evict(long fileNumber) {
        TableReader reader = open.remove(fileNumber);
        if (reader != null) {
            reader.release();
        }
        if (blockCache != null) {
            blockCache.evictFile(fileNumber);
        }
    }

    /**
     * Opens {@code tables} now, on the calling background thread, so that the first read of a table a flush
     * or compaction just wrote does not pay for mapping it and loading its index and filter (RocksDB opens
     * new tables the same way before installing them). Opening also checks the table's footer, index and
     * filter, so damage done while writing fails the background job rather than a later read.
     */
    public void openAll(List<TableMeta> tables) {
        for (TableMeta table : tables) {
            acquire(table).release();
        }
    }

    public int openCount() {
        return open.size();
    }

    /**
     * Drops the cache's reference to every table; readers still holding their own keep theirs. Later
     * acquisitions throw {@link IllegalStateException}. A table an acquisition opened concurrently is either
     * seen here (closed is set first) or sees {@code closed} after entering the map and evicts it itself.
     * Every block this database put in the block cache goes too: a cache shared with other databases must
     * not keep a closed one's blocks.
     */
    @Override
    public void close() {
        closed = true;
        for (Long number : open.keySet()) {
            evict(number);
        }
        if (blockCache != null) {
            blockCache.evictOwn();
        }
    }
}
