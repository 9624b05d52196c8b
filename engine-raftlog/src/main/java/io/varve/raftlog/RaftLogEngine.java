package io.varve.raftlog;

import io.varve.base.concurrent.GroupCommit;
import io.varve.base.fs.FileSystem;
import io.varve.raftlog.file.BlockReader;
import io.varve.raftlog.file.FileCatalog;
import io.varve.raftlog.file.FileReaders;
import io.varve.raftlog.file.IoCounters;
import io.varve.raftlog.file.LogQueue;
import io.varve.raftlog.file.QueueWriter;
import io.varve.raftlog.file.TrackedFileSystem;
import io.varve.raftlog.file.RecyclePool;
import io.varve.raftlog.format.LogFileFormat;
import io.varve.raftlog.format.BatchBuilder;
import io.varve.raftlog.index.Location;
import io.varve.raftlog.index.MemIndex;
import io.varve.raftlog.purge.PurgeSettings;
import io.varve.raftlog.purge.Purger;
import io.varve.raftlog.recovery.RecoveredLog;
import io.varve.raftlog.recovery.Recovery;
import io.varve.raftlog.write.BatchCommitter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A log-structured store for the logs of many Raft groups: every group's entries and small key/value state
 * (such as the hard state) go to one shared sequence of append-only files, written with group commit, and
 * are found again through a compact in-memory index rebuilt from the files' batch footers at open.
 *
 * <p>Thread-safe. Writes from many threads are grouped so one fdatasync covers many writers; reads run in
 * parallel with writes and with each other. Durability: {@code write(batch, true)} returns after the batch
 * and everything written before it is on disk; after a crash, recovery yields the batches written up to some
 * point, with every synced one included and no holes.
 *
 * <p>Space is reclaimed only when the caller runs {@link #purgeExpiredFiles()} (periodically) and compacts
 * the groups it reports. See docs/raftlog.md for the design and docs/raftlog-format.md for the file format.
 */
public final class RaftLogEngine implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RaftLogEngine.class.getName());
    private static final int READ_RETRIES = 3;
    private static final int FIRST_READ_CHUNK = 64;
    private static final int MAX_READ_CHUNK = 4096;

    private final Path dir;
    private final RaftLogOptions options;
    private final FileSystem.FileLock lock;
    private final MemIndex index;
    private final FileCatalog catalog;
    private final IoCounters counters;
    private final FileReaders readers;
    private final BlockReader blocks;
    private final QueueWriter appendWriter;
    private final BatchCommitter committer;
    private final GroupCommit groupCommit;
    private final Purger purger;
    private volatile boolean closed;

    private RaftLogEngine(Path dir, FileSystem fs, RaftLogOptions options, FileSystem.FileLock lock, MemIndex index,
            FileCatalog catalog, IoCounters counters, QueueWriter appendWriter, QueueWriter rewriteWriter,
            RecyclePool pool, RecoveredLog recovered) {
        this.dir = dir;
        this.options = options;
        this.lock = lock;
        this.index = index;
        this.catalog = catalog;
        this.counters = counters;
        this.appendWriter = appendWriter;
        this.readers = new FileReaders(fs, dir);
        this.blocks = new BlockReader(readers, dir, counters);
        this.committer = new BatchCommitter(appendWriter, index);
        this.groupCommit = new GroupCommit(committer, options.maxWriteGroupBytes());
        PurgeSettings settings = new PurgeSettings(options.purgeThreshold(), options.purgeRewriteMaxEntries(),
                options.rewriteGarbageRatio(), options.targetFileSize(),
                (int) Math.min(1 << 20, options.targetFileSize() / 4), options.compressionThreshold());
        this.purger = new Purger(fs, dir, index, catalog, readers, blocks, groupCommit, committer, appendWriter,
                rewriteWriter, pool, counters, settings, recovered.rewriteGroups());
    }

    /** Opens (creating if needed) the log in {@code dir} on the real disk, with default options. */
    public static RaftLogEngine open(Path dir) throws IOException {
        return open(dir, RaftLogOptions.defaults());
    }

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering its state according to
     * {@link RaftLogOptions#recoveryMode()}.
     *
     * @throws io.varve.base.CorruptionException if the files are damaged beyond what the mode tolerates
     * @throws IOException if the directory is locked by another open engine, or on I/O errors
     */
    public static RaftLogEngine open(Path dir, RaftLogOptions options) throws IOException {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        FileSystem fs = TrackedFileSystem.of(options.fileSystem());
        fs.createDirectories(dir);
        if (dir.toAbsolutePath().getParent() != null) {
            fs.syncDirectory(dir.toAbsolutePath().getParent());
        }
        FileSystem.FileLock lock = fs.lock(dir.resolve(LogFileFormat.LOCK_NAME));
        QueueWriter appendWriter = null;
        QueueWriter rewriteWriter = null;
        RaftLogEngine engine;
        boolean needsCommit;
        try {
            MemIndex index = new MemIndex();
            FileCatalog catalog = new FileCatalog();
            IoCounters counters = new IoCounters();
            long started = System.nanoTime();
            RecoveredLog recovered = new Recovery(fs, dir, options.recoveryMode(), options.recoveryThreads(),
                    index, catalog).run();
            RecyclePool pool = new RecyclePool(fs, dir, options.effectiveRecycledFiles(), recovered.recycledFiles());
            appendWriter = new QueueWriter(fs, dir, LogQueue.APPEND, options.targetFileSize(), catalog, counters,
                    recovered.nextAppendSeq(), pool);
            if (recovered.resumeAppendSeq() > 0 && recovered.resumable()
                    && recovered.resumeAppendSize() < options.targetFileSize()) {
                appendWriter.resume(recovered.resumeAppendSeq(), recovered.resumeAppendSize(),
                        recovered.resumeFirstBatch());
            } else {
                appendWriter.startNewFile(recovered.resumeAppendSeq() > 0 ? recovered.resumeAppendSize() : 0);
            }
            if (!recovered.holeRepairs().isEmpty()) {
                // Make the repair durable: replaying this compaction after the hole closes it again.
                BatchBuilder repair = new BatchBuilder();
                recovered.holeRepairs().forEach(repair::compactTo);
                appendWriter.append(repair.encode(Integer.MAX_VALUE));
                appendWriter.sync();
            }
            rewriteWriter = new QueueWriter(fs, dir, LogQueue.REWRITE, options.targetFileSize(), catalog, counters,
                    recovered.nextRewriteSeq());
            engine = new RaftLogEngine(dir, fs, options, lock, index, catalog, counters, appendWriter,
                    rewriteWriter, pool, recovered);
            long millis = (System.nanoTime() - started) / 1_000_000;
            LOG.log(System.Logger.Level.DEBUG, () -> "opened raft log " + dir + " in " + millis + " ms: "
                    + index.stats().groups() + " groups, " + index.stats().entries() + " entries"
                    + (recovered.problems().isEmpty() ? "" : ", tolerated " + recovered.problems()));
            needsCommit = recovered.needsCommit();
        } catch (IOException | RuntimeException | Error e) {
            closeQuietly(appendWriter, e);
            closeQuietly(rewriteWriter, e);
            try {
                lock.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        if (needsCommit) {
            // Tolerated damage contradicts the last purge commit; a commit of the files as they are now keeps
            // the next open, in any mode, from refusing what this one accepted.
            try {
                engine.purger.checkpoint();
            } catch (IOException | RuntimeException e) {
                try {
                    engine.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
        return engine;
    }

    /**
     * Writes a batch atomically. With {@code sync}, returns only once the batch (and every batch written
     * before it) is durable. An empty batch writes nothing; with {@code sync} it still waits for durability of
     * earlier writes.
     *
     * @return the bytes the batch took in the log
     * @throws IllegalArgumentException if the batch would leave a gap in a group's log (nothing is written)
     * @throws IOException on an I/O error, after which the engine refuses all writes with that error as cause
     */
    public long write(LogBatch batch, boolean sync) throws IOException {
        Objects.requireNonNull(batch, "batch");
        ensureOpen();
        if (committer.failure() != null) {
            throw committer.refusal();
        }
        if (batch.isEmpty() && !sync) {
            return 0;
        }
        BatchCommitter.WriteRequest request = new BatchCommitter.WriteRequest(
                batch.isEmpty() ? null : batch.builder.encode(options.compressionThreshold()), sync);
        groupCommit.enter(request);
        rethrow(request.failure());
        return request.result();
    }

    /**
     * Entries {@code [from, toExclusive)} of a group, stopping before the total payload would exceed
     * {@code maxBytes} but always returning at least one entry if the range is not empty. If the group's log
     * is overwritten or compacted while the entries are being read, the entries read before that are
     * returned (a prefix, never a mix of the old and the new log).
     *
     * @throws IndexOutOfBoundsException if part of the range is compacted or beyond the last index
     * @throws io.varve.base.CorruptionException if an entry's stored block fails its checksum
     */
    public List<byte[]> entries(long group, long from, long toExclusive, long maxBytes) throws IOException {
        ensureOpen();
        if (from > toExclusive) {
            throw new IllegalArgumentException("from " + from + " > toExclusive " + toExclusive);
        }
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes must be >= 0: " + maxBytes);
        }
        if (from == toExclusive) {
            return new ArrayList<>();
        }
        index.checkRange(group, from, toExclusive);
        List<byte[]> out = new ArrayList<>();
        long total = 0;
        long next = from;
        long boundaryLocation = 0;
        int boundaryOrdinal = 0;
        int chunk = FIRST_READ_CHUNK;
        // Locations are copied a chunk at a time, so a small byte budget never copies a huge range. Each later
        // chunk re-reads the last entry of the previous one: if it moved, the log was overwritten below it
        // meanwhile and what was read so far is returned rather than mixed with the newer log.
        while (next < toExclusive) {
            long lo = next == from ? from : next - 1;
            long hi = Math.min(toExclusive, next + chunk);
            MemIndex.Located located;
            try {
                located = index.locate(group, lo, hi);
            } catch (IndexOutOfBoundsException e) {
                if (out.isEmpty()) {
                    throw e;
                }
                return out; // compacted or truncated since the previous chunk
            }
            int skip = (int) (next - lo);
            if (skip == 1 && (located.locations()[0] != boundaryLocation
                    || located.ordinals()[0] != boundaryOrdinal)) {
                return out;
            }
            for (int i = skip; i < located.locations().length; i++) {
                byte[] e = read(group, next, located.locations()[i], located.ordinals()[i]);
                if (!out.isEmpty() && total + e.length > maxBytes) {
                    return out;
                }
                out.add(e);
                total += e.length;
                next++;
            }
            boundaryLocation = located.locations()[located.locations().length - 1];
            boundaryOrdinal = located.ordinals()[located.ordinals().length - 1];
            chunk = Math.min(MAX_READ_CHUNK, chunk * 2);
        }
        return out;
    }

    /** Reads one entry, following it if purge moved it (and deleted its old file) after it was located. */
    private byte[] read(long group, long index, long location, int ordinal) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return blocks.entry(Location.fileId(location), Location.position(location), ordinal);
            } catch (IOException e) {
                // IndexOutOfBoundsException from locate if the entry is gone meanwhile: the right answer.
                MemIndex.Located now = this.index.locate(group, index, index + 1);
                if (attempt >= READ_RETRIES || (now.locations()[0] == location && now.ordinals()[0] == ordinal)) {
                    throw e;
                }
                location = now.locations()[0];
                ordinal = now.ordinals()[0];
            }
        }
    }

    /** One entry, or null if the group has no entry at {@code index}. */
    public byte[] entry(long group, long index) throws IOException {
        ensureOpen();
        long[] range = this.index.range(group);
        if (range == null || index < range[0] || index >= range[0] + range[1]) {
            return null;
        }
        try {
            List<byte[]> one = entries(group, index, index + 1, Long.MAX_VALUE);
            return one.getFirst();
        } catch (IndexOutOfBoundsException compactedMeanwhile) {
            return null;
        }
    }

    public OptionalLong firstIndex(long group) {
        ensureOpen();
        return index.firstIndex(group);
    }

    public OptionalLong lastIndex(long group) {
        ensureOpen();
        return index.lastIndex(group);
    }

    /** A key of the group's state, or null. */
    public byte[] get(long group, byte[] key) {
        Objects.requireNonNull(key, "key");
        ensureOpen();
        return index.get(group, key);
    }

    /** Drops the group's entries below {@code index}: writes a one-command batch, not synced. */
    public void compactTo(long group, long index) throws IOException {
        write(new LogBatch().compactTo(group, index), false);
    }

    /**
     * Reclaims space: when the append queue is over the purge threshold, copies the live entries of lightly
     * used groups out of the oldest files, and deletes every file that no longer holds live data. Also
     * compacts the rewrite queue when it is mostly garbage.
     *
     * @return groups whose old entries keep files alive; the caller should compact them (sorted)
     */
    public List<Long> purgeExpiredFiles() throws IOException {
        ensureOpen();
        if (committer.failure() != null) {
            throw committer.refusal();
        }
        return purger.purge();
    }

    /** Groups that have at least one entry or key, sorted. */
    public List<Long> groups() {
        ensureOpen();
        long[] groups = index.groups();
        List<Long> out = new ArrayList<>(groups.length);
        for (long g : groups) {
            out.add(g);
        }
        return out;
    }

    public EngineStats stats() {
        MemIndex.Stats s = index.stats();
        return new EngineStats(counters.appendBytes.sum(), counters.rewriteBytes.sum(), counters.dataSyncs.sum(),
                counters.directorySyncs.sum(), counters.batchesWritten.sum(), catalog.fileCount(LogQueue.APPEND),
                catalog.fileCount(LogQueue.REWRITE),
                catalog.totalBytes(LogQueue.APPEND) + catalog.totalBytes(LogQueue.REWRITE), s.groups(),
                s.entries(), s.heapBytes(), groupCommit.queued(), counters.filesDeleted.sum(),
                counters.purgeRewrites.sum(), counters.rewriteQueueCompactions.sum(), counters.filesRecycled.sum());
    }

    /** The directory this engine stores its files in. */
    public Path directory() {
        return dir;
    }

    /**
     * Waits for in-flight writes and a running purge, syncs the active file (unless the engine had failed),
     * and releases the directory. Idempotent.
     */
    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        IOException first = null;
        BatchCommitter.ExclusiveRequest stop = new BatchCommitter.ExclusiveRequest(() -> {
            committer.markClosed();
            try {
                if (committer.failure() == null) {
                    appendWriter.sync();
                }
            } finally {
                appendWriter.close();
            }
            return 0;
        }, false, true);
        groupCommit.enter(stop);
        if (stop.failure() instanceof IOException e) {
            first = e;
        }
        try {
            purger.close();
        } catch (IOException e) {
            first = first == null ? e : first;
        }
        readers.close();
        try {
            lock.close();
        } catch (IOException e) {
            first = first == null ? e : first;
        }
        if (first != null) {
            throw first;
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the raft log engine for " + dir + " is closed");
        }
    }


    private static void rethrow(Throwable failure) throws IOException {
        switch (failure) {
            case null -> { }
            case IOException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IOException(failure);
        }
    }

    private static void closeQuietly(QueueWriter writer, Throwable into) {
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                into.addSuppressed(e);
            }
        }
    }

    @Override
    public String toString() {
        return "RaftLogEngine[" + dir + "]";
    }
}
