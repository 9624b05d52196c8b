package io.varve.raftlog.file;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.raftlog.format.EncodedBatch;
import io.varve.raftlog.format.LogFileFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Appends batches to the active file of one queue and rolls to a new file when the next batch would push
 * the active one past the target size (a batch larger than the target gets a file of its own).
 *
 * <p>Rolling is where most of the durability contract is kept: the old file is synced before the new one is
 * used, so a later sync of the new file never makes a batch durable while an earlier one in the old file is
 * not (recovery must see a prefix of the batches). The new file's header is synced and its directory entry
 * made durable before any batch goes into it, so a synced batch never lives in a file whose name could
 * vanish in a crash.
 *
 * <p>Given a {@link RecyclePool}, a new file is a purged one written over rather than a created one: its new
 * header (recycled flag, new sequence) is written and synced while it still has its recycle name, and only
 * then is it renamed, so a file named as a log file always has a header of its own. Each header records the
 * previous file's final length, which tells recovery where a recycled file's own batches end.
 *
 * <p>One owner at a time (the write leader for the append queue, the purger for the rewrite queue); after any
 * {@link IOException} the writer must not be used again.
 */
public final class QueueWriter implements AutoCloseable {
    private final FileSystem fs;
    private final Path dir;
    private final LogQueue queue;
    private final long targetFileSize;
    private final FileCatalog catalog;
    private final IoCounters counters;

    private WritableFile active;
    private long activeSeq;
    private long activeSize;
    private boolean unsynced;
    private long nextSeq;
    private long previousEnd;
    /** Where the active file's batches start: its header's size (32 for a resumed version-2 file). */
    private long firstBatch;
    private final RecyclePool pool;

    /** A writer whose first append creates file {@code nextSeq}. */
    public QueueWriter(FileSystem fs, Path dir, LogQueue queue, long targetFileSize, FileCatalog catalog,
            IoCounters counters, long nextSeq) {
        this(fs, dir, queue, targetFileSize, catalog, counters, nextSeq, null);
    }

    /** As above, taking new files from {@code pool} (null: always create them) when it has some. */
    public QueueWriter(FileSystem fs, Path dir, LogQueue queue, long targetFileSize, FileCatalog catalog,
            IoCounters counters, long nextSeq, RecyclePool pool) {
        this.pool = pool;
        this.fs = fs;
        this.dir = dir;
        this.queue = queue;
        this.targetFileSize = targetFileSize;
        this.catalog = catalog;
        this.counters = counters;
        this.nextSeq = nextSeq;
    }

    /**
     * Continues appending to an existing, fully valid file (already in the catalog) whose batches start at
     * {@code firstBatch}.
     */
    public void resume(long seq, long size, long firstBatch) throws IOException {
        active = fs.openForAppend(dir.resolve(LogFileName.of(queue, seq)));
        if (active.size() != size) {
            long actual = active.size();
            active.close();
            active = null;
            throw new IOException("file " + LogFileName.of(queue, seq) + " has " + actual
                    + " bytes, recovery validated " + size);
        }
        activeSeq = seq;
        activeSize = size;
        this.firstBatch = firstBatch;
        // What recovery read may still be only in the page cache (after a process crash): not known durable.
        unsynced = true;
        nextSeq = seq + 1;
    }

    /** Creates the next file now rather than at the first append. */
    public void startNewFile() throws IOException {
        roll();
    }

    /**
     * Creates the next file now, recording {@code lastFileEnd} as the valid length of the file before it
     * (recovery found it; this writer did not write it).
     */
    public void startNewFile(long lastFileEnd) throws IOException {
        previousEnd = lastFileEnd;
        roll();
    }

    /**
     * Appends a batch and returns its position in the active file ({@link #activeFileId()} names the file).
     */
    public long append(EncodedBatch batch) throws IOException {
        if (active == null || (hasBatches() && activeSize + batch.length() > targetFileSize)) {
            roll();
        }
        byte[] bytes = batch.bindTo(queue.code(), activeSeq, !unsynced);
        long position = activeSize;
        active.write(ByteBuffer.wrap(bytes));
        activeSize += bytes.length;
        unsynced = true;
        counters.written(queue, bytes.length);
        counters.batchesWritten.increment();
        catalog.grow(activeFileId(), bytes.length, batch.entryCount());
        return position;
    }

    /** fdatasync of the active file, if anything was written since the last one. */
    public void sync() throws IOException {
        if (active != null && unsynced) {
            active.sync();
            unsynced = false;
            counters.dataSyncs.increment();
        }
    }

    public long activeFileId() {
        return FileId.of(queue, activeSeq);
    }

    /** Where the active file's next batch will start. */
    public long activeEnd() {
        return activeSize;
    }

    public boolean hasActiveFile() {
        return active != null;
    }

    /** The next sequence number this writer will use when it rolls. */
    public long nextSequence() {
        return nextSeq;
    }

    private boolean hasBatches() {
        return activeSize > firstBatch;
    }

    private void roll() throws IOException {
        if (active != null) {
            sync();
            active.close();
            active = null;
            previousEnd = activeSize;
        }
        long seq = nextSeq;
        long id = FileId.of(queue, seq);
        Path path = dir.resolve(LogFileName.of(queue, seq));
        Path reused = pool == null ? null : pool.take();
        WritableFile file = reused == null ? fs.create(path) : fs.openForOverwrite(reused, 0);
        try {
            file.write(ByteBuffer.wrap(LogFileFormat.encodeHeader(queue.code(), seq, reused != null, previousEnd)));
            file.sync();
            counters.dataSyncs.increment();
            if (reused != null) {
                fs.rename(reused, path);
            }
            fs.syncDirectory(dir);
            counters.directorySyncs.increment();
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
        (reused == null ? counters.filesCreated : counters.filesRecycled).increment();
        counters.written(queue, LogFileFormat.HEADER_SIZE);
        catalog.add(id, LogFileFormat.HEADER_SIZE, 0);
        active = file;
        activeSeq = seq;
        activeSize = LogFileFormat.HEADER_SIZE;
        firstBatch = LogFileFormat.HEADER_SIZE;
        unsynced = false;
        nextSeq = seq + 1;
    }

    @Override
    public void close() throws IOException {
        if (active != null) {
            WritableFile f = active;
            active = null;
            f.close();
        }
    }
}
