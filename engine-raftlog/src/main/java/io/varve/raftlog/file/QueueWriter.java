package io.varve.raftlog.file;

import io.varve.core.fs.FileSystem;
import io.varve.core.fs.WritableFile;
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

    /** A writer whose first append creates file {@code nextSeq}. */
    public QueueWriter(FileSystem fs, Path dir, LogQueue queue, long targetFileSize, FileCatalog catalog,
            IoCounters counters, long nextSeq) {
        this.fs = fs;
        this.dir = dir;
        this.queue = queue;
        this.targetFileSize = targetFileSize;
        this.catalog = catalog;
        this.counters = counters;
        this.nextSeq = nextSeq;
    }

    /** Continues appending to an existing, fully valid file (already in the catalog). */
    public void resume(long seq, long size) throws IOException {
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
        nextSeq = seq + 1;
    }

    /** Creates the next file now rather than at the first append. */
    public void startNewFile() throws IOException {
        roll();
    }

    /**
     * Appends a batch and returns its position in the active file ({@link #activeFileId()} names the file).
     */
    public long append(EncodedBatch batch) throws IOException {
        if (active == null || (activeSize > LogFileFormat.HEADER_SIZE && activeSize + batch.length() > targetFileSize)) {
            roll();
        }
        byte[] bytes = batch.bindTo(queue.code(), activeSeq);
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

    public boolean hasActiveFile() {
        return active != null;
    }

    /** The next sequence number this writer will use when it rolls. */
    public long nextSequence() {
        return nextSeq;
    }

    private void roll() throws IOException {
        if (active != null) {
            sync();
            active.close();
            active = null;
        }
        long seq = nextSeq;
        long id = FileId.of(queue, seq);
        Path path = dir.resolve(LogFileName.of(queue, seq));
        WritableFile file = fs.create(path);
        try {
            file.write(ByteBuffer.wrap(LogFileFormat.encodeHeader(queue.code(), seq)));
            file.sync();
            counters.dataSyncs.increment();
            fs.syncDirectory(dir);
            counters.directorySyncs.increment();
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
        counters.filesCreated.increment();
        counters.written(queue, LogFileFormat.HEADER_SIZE);
        catalog.add(id, LogFileFormat.HEADER_SIZE, 0);
        active = file;
        activeSeq = seq;
        activeSize = LogFileFormat.HEADER_SIZE;
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
