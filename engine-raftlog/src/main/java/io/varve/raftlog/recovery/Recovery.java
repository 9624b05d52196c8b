package io.varve.raftlog.recovery;

import io.varve.base.CorruptionException;
import io.varve.base.LeakDetector;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.raftlog.file.FileCatalog;
import io.varve.raftlog.file.FileId;
import io.varve.raftlog.file.LogFileName;
import io.varve.raftlog.file.LogQueue;
import io.varve.raftlog.format.LogFileFormat;
import io.varve.raftlog.index.MemIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rebuilds the index from the log files: the rewrite queue in sequence order, then the append queue in
 * sequence order, each batch's footer items applied in order. Files are scanned in parallel on a small pool
 * (a bounded number ahead of the one being applied, to cap memory), and applied strictly in order by the
 * calling thread, since a batch's effect depends on everything before it.
 *
 * <p>Rewrite-queue batches are applied only in whole purges: they are held back until a batch ending in a
 * Commit item arrives, and whatever follows the last Commit (a purge that did not finish) is removed.
 *
 * <p>Replay tolerates a gap in a group's log (placeholders fill it) because purge may have rewritten a
 * group's state as of a later point than some append-queue batches that are replayed after it; the later
 * batches then fill or cut away the gap. A gap still open at the end is corruption (or, in
 * {@link RecoveryMode#TOLERATE_ANY_CORRUPTION}, repaired by dropping the entries below it).
 *
 * <p>Damage that the mode tolerates is cut off physically: the valid prefix is copied to a temporary file
 * which is synced and renamed over the damaged one (engine-core files are append-only, there is no truncate).
 */
public final class Recovery {
    private static final System.Logger LOG = System.getLogger(Recovery.class.getName());

    private final FileSystem fs;
    private final Path dir;
    private final RecoveryMode mode;
    private final int threads;
    private final MemIndex index;
    private final FileCatalog catalog;
    private final List<String> problems = new ArrayList<>();

    public Recovery(FileSystem fs, Path dir, RecoveryMode mode, int threads, MemIndex index, FileCatalog catalog) {
        this.fs = fs;
        this.dir = dir;
        this.mode = mode;
        this.threads = Math.max(1, threads);
        this.index = index;
        this.catalog = catalog;
    }

    public RecoveredLog run() throws IOException {
        List<Long> rewrite = new ArrayList<>();
        List<Long> append = new ArrayList<>();
        List<String> recycled = new ArrayList<>();
        for (String name : fs.list(dir)) {
            if (name.endsWith(LogFileFormat.TEMP_SUFFIX)) {
                fs.delete(dir.resolve(name)); // an interrupted repair; the original is still in place
                continue;
            }
            if (name.endsWith(LogFileFormat.RECYCLE_SUFFIX)) {
                recycled.add(name); // content irrelevant: it is only ever written over
                continue;
            }
            long id = LogFileName.parse(name);
            if (id >= 0) {
                (FileId.queue(id) == LogQueue.APPEND ? append : rewrite).add(id);
            }
        }
        rewrite.sort(null);
        append.sort(null);
        List<Long> missing = missingAppendFiles(append);

        List<Long> order = new ArrayList<>(rewrite);
        order.addAll(append);
        long lastRewrite = rewrite.isEmpty() ? -1 : rewrite.getLast();
        long lastAppend = append.isEmpty() ? -1 : append.getLast();

        RewriteQueueReplay rewrites = new RewriteQueueReplay(index);
        CommitBounds bounds = new CommitBounds(dir, mode, this::problem);
        List<ScannedFile> toRepair = new ArrayList<>();
        long resumeSeq = 0;
        long resumeSize = 0;
        long resumeFirstBatch = 0;
        boolean resumable = false;
        AtomicInteger threadNumber = new AtomicInteger();
        List<Thread> scanners = new CopyOnWriteArrayList<>();
        String owner = dir.toString();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(() -> {
                try (LeakDetector.Handle ignored = LeakDetector.track("thread", owner)) {
                    r.run();
                }
            }, "raftlog-recovery-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            scanners.add(t);
            return t;
        });
        try {
            ArrayDeque<Future<ScannedFile>> ahead = new ArrayDeque<>();
            int submitted = 0;
            for (int i = 0; i < order.size(); i++) {
                while (submitted < order.size() && ahead.size() < threads * 2) {
                    long id = order.get(submitted++);
                    boolean last = id == lastRewrite || id == lastAppend;
                    ahead.add(pool.submit(() -> FileScanner.scan(fs, dir, id, last)));
                }
                ScannedFile file = await(ahead.removeFirst());
                long id = file.fileId();
                boolean lastOfQueue = id == lastRewrite || id == lastAppend;
                if (!file.clean()) {
                    tolerateOrThrow(file, lastOfQueue);
                    toRepair.add(file);
                }
                if (FileId.queue(id) == LogQueue.REWRITE) {
                    rewrites.add(file);
                    continue;
                }
                // The rewrite queue, replayed first, is complete: its last commit is known.
                bounds.checkAppendFile(file, rewrites.lastCommit());
                long entries = 0;
                ScannedBatches batches = file.batches();
                for (int k = 0; k < batches.size(); k++) {
                    index.apply(batches.items(k), id, batches.position(k), true);
                    entries += batches.entryCount(k);
                }
                if (file.headerValid()) {
                    catalog.add(id, file.validLength(), entries);
                }
                if (id == lastAppend && file.headerValid()) {
                    resumeSeq = FileId.sequence(id);
                    resumeSize = file.validLength();
                    resumeFirstBatch = file.firstBatch();
                    // Appending after a stale tail would leave old bytes, possibly this file's own batches
                    // that a crash dropped, where later scans could take them for batches: start a new file.
                    resumable = !file.staleTail();
                }
            }
        } finally {
            // Waits for scans already running: a refused open must not return while they still read its files
            // through mappings (a caller that then repairs or replaces a file would crash them with SIGBUS).
            pool.shutdownNow();
            pool.close();
            // The pool's termination is signalled from inside its last worker: join the threads themselves,
            // so none outlives the open.
            joinAll(scanners);
        }
        List<ScannedFile> damagedRewrites = new ArrayList<>();
        for (ScannedFile f : toRepair) {
            if (FileId.queue(f.fileId()) == LogQueue.REWRITE) {
                damagedRewrites.add(f);
            }
        }
        toRepair.removeAll(damagedRewrites);
        bounds.checkFiles(rewrite, append, rewrites.lastCommit(),
                damagedRewrites.isEmpty() ? null : damagedRewrites.getFirst());
        dropUncommittedRewrites(rewrites, damagedRewrites);

        List<MemIndex.Gap> gaps = index.finishReplay(mode == RecoveryMode.TOLERATE_ANY_CORRUPTION);
        Map<Long, Long> holeRepairs = new HashMap<>();
        for (MemIndex.Gap gap : gaps) {
            holeRepairs.put(gap.group(), gap.lastPlaceholder() + 1);
            String what = "group " + gap.group() + " has a hole in its log below index " + (gap.lastPlaceholder() + 1);
            if (mode != RecoveryMode.TOLERATE_ANY_CORRUPTION) {
                Path where = gap.fileId() >= 0 ? LogFileName.path(dir, gap.fileId()) : dir;
                throw new CorruptionException(where, gap.position(), what);
            }
            problem(what + "; kept only the entries above it");
        }
        long reusableAppendSeq = 0;
        for (ScannedFile file : toRepair) {
            if (repair(file) && file.fileId() == lastAppend) {
                reusableAppendSeq = FileId.sequence(lastAppend);
            }
        }
        for (long seq : missing) {
            writeEmptyFile(LogQueue.APPEND, seq);
        }
        // A deleted last file never held a batch: its number is reused so the queue stays contiguous.
        long nextAppend = reusableAppendSeq > 0 ? reusableAppendSeq
                : lastAppend < 0 ? 1 : FileId.sequence(lastAppend) + 1;
        long nextRewrite = lastRewrite < 0 ? 1 : FileId.sequence(lastRewrite) + 1;
        return new RecoveredLog(resumeSeq, resumeSize, resumeFirstBatch, resumable, nextAppend, nextRewrite,
                rewrites.groups(), List.copyOf(problems), Map.copyOf(holeRepairs), List.copyOf(recycled),
                bounds.violated());
    }

    private static void joinAll(List<Thread> threads) {
        boolean interrupted = false;
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Purge deletes append files oldest first, so the queue must be a run of consecutive sequence numbers.
     * Returns the missing ones (only when the mode tolerates them, so they can be filled with empty files).
     */
    private List<Long> missingAppendFiles(List<Long> append) throws CorruptionException {
        List<Long> missing = new ArrayList<>();
        for (int i = 1; i < append.size(); i++) {
            long prev = FileId.sequence(append.get(i - 1));
            long seq = FileId.sequence(append.get(i));
            if (seq != prev + 1) {
                Path first = dir.resolve(LogFileName.of(LogQueue.APPEND, prev + 1));
                String what = "append files " + (prev + 1) + " to " + (seq - 1) + " are missing";
                if (mode != RecoveryMode.TOLERATE_ANY_CORRUPTION) {
                    throw new CorruptionException(first, 0, what);
                }
                problem(what + "; replaced by empty files");
                for (long s = prev + 1; s < seq; s++) {
                    missing.add(s);
                }
            }
        }
        return missing;
    }

    private void tolerateOrThrow(ScannedFile file, boolean lastOfQueue) throws CorruptionException {
        boolean tolerated = switch (mode) {
            case ABSOLUTE_CONSISTENCY -> false;
            case TOLERATE_TAIL_CORRUPTION -> lastOfQueue && file.damageReachesEnd();
            case TOLERATE_ANY_CORRUPTION -> true;
        };
        if (!tolerated) {
            throw file.damage();
        }
        problem(file.damage().getMessage() + "; kept the " + file.batches().size() + " batches before it");
    }

    /**
     * Keeps the rewrite queue up to its last Commit: a purge interrupted before committing is removed (files
     * after the commit deleted, the committing file cut after it), so its batches can never be mistaken for
     * part of a later purge. Damage tolerated in rewrite files is repaired here as well.
     */
    private void dropUncommittedRewrites(RewriteQueueReplay rewrites, List<ScannedFile> damaged)
            throws IOException {
        long lastCommitFile = rewrites.lastCommitFile();
        long lastCommitEnd = rewrites.lastCommitEnd();
        Map<Long, ScannedFile> damage = new HashMap<>();
        for (ScannedFile f : damaged) {
            damage.put(f.fileId(), f);
        }
        boolean changed = false;
        for (Map.Entry<Long, RewriteQueueReplay.FileState> e : rewrites.files().entrySet()) {
            long id = e.getKey();
            long valid = e.getValue().validLength;
            long entries = e.getValue().committedEntries;
            Path path = LogFileName.path(dir, id);
            if (lastCommitFile < 0 || id > lastCommitFile) {
                fs.delete(path);
                changed = true;
                LOG.log(System.Logger.Level.INFO, "removed " + path + ": written by a purge that did not finish");
            } else if (id == lastCommitFile && valid > lastCommitEnd) {
                cut(path, lastCommitEnd);
                changed = true;
                catalog.add(id, lastCommitEnd, entries);
            } else if (valid >= 0) {
                if (damage.containsKey(id)) {
                    repair(damage.get(id));
                }
                catalog.add(id, valid, entries);
            } else if (damage.containsKey(id)) {
                repair(damage.get(id));
            }
        }
        if (changed) {
            fs.syncDirectory(dir);
        }
    }

    /** Cuts off tolerated damage; returns whether the file was deleted. */
    private boolean repair(ScannedFile file) throws IOException {
        Path path = file.path();
        boolean deleted = false;
        if (!file.headerValid()) {
            if (file.damageReachesEnd()) {
                fs.delete(path); // a file whose creation was cut short: nothing in it was ever acknowledged
                deleted = true;
            } else {
                // Keep the bytes for inspection, and the sequence number taken so the queue stays contiguous.
                fs.rename(path, dir.resolve(path.getFileName() + ".corrupt"));
                writeEmptyFile(FileId.queue(file.fileId()), FileId.sequence(file.fileId()));
            }
        } else {
            cut(path, file.validLength());
        }
        fs.syncDirectory(dir);
        LOG.log(System.Logger.Level.WARNING, "repaired " + path + ": kept " + file.validLength() + " of "
                + file.size() + " bytes");
        return deleted;
    }

    /**
     * Keeps only the first {@code length} bytes of a file: engine-core files are append-only, so the prefix is
     * copied to a temporary file, synced, and renamed over the original (the caller syncs the directory).
     */
    private void cut(Path path, long length) throws IOException {
        Path temp = dir.resolve(path.getFileName() + LogFileFormat.TEMP_SUFFIX);
        try (ReadableFile in = fs.openReadable(path); WritableFile out = fs.create(temp)) {
            ByteBuffer buf = ByteBuffer.allocate(FileScanner.WINDOW);
            for (long at = 0; at < length; ) {
                buf.clear().limit((int) Math.min(buf.capacity(), length - at));
                in.readFully(buf, at);
                at += buf.position();
                buf.flip();
                out.write(buf);
            }
            out.sync();
        }
        fs.rename(temp, path);
    }

    /** A valid file without batches, synced and named durably. */
    private void writeEmptyFile(LogQueue queue, long seq) throws IOException {
        Path path = dir.resolve(LogFileName.of(queue, seq));
        try (WritableFile out = fs.create(path)) {
            out.write(ByteBuffer.wrap(LogFileFormat.encodeHeader(queue.code(), seq)));
            out.sync();
        }
        fs.syncDirectory(dir);
        catalog.add(FileId.of(queue, seq), LogFileFormat.HEADER_SIZE, 0);
    }

    private void problem(String what) {
        LOG.log(System.Logger.Level.WARNING, "raft log recovery: " + what);
        problems.add(what);
    }

    private static ScannedFile await(Future<ScannedFile> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while recovering", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof UncheckedIOException u) {
                throw u.getCause();
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException("recovery scan failed", cause);
        }
    }
}
