package io.varve.core.internal.wal;

import io.varve.base.concurrent.GroupCommit;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.WritableFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * The database's write-ahead logs: the current log and its in-memory buffer, the spare log made ahead of time,
 * the logs sealed by rotations until their final fsync, group commit, and the log worker thread.
 *
 * <h2>Positions</h2>
 * Byte positions run on across logs ({@code base} is the position of the current log's first byte), so one
 * number says how far the logs are written: {@code flushedPosition} (handed to the OS) and
 * {@code durablePosition}. Every byte below the durable position is durable, because fsyncs cover logs strictly
 * oldest first.
 *
 * <h2>Rotation without I/O under the log lock</h2>
 * The log worker keeps a <em>spare log</em> ready: the next log file, created and its name made durable
 * (directory sync) before it is needed. {@link #rotate}, under the log lock alone, hands the old log's buffer to
 * the OS (one {@code write}, as any writer does under this lock), swaps the spare in, appends a
 * {@link PredecessorRecord} naming the old log and its final length, and queues the old log on {@code sealed}.
 * The old log's final fsync then runs on the log worker, which also creates the next spare. If no spare is
 * ready (two rotations within one file creation), the rotation creates the log itself, the only case where it
 * waits for file-system metadata I/O under the lock. Logs are used in the order of their numbers, the order
 * recovery replays them: a spare finished after such a rotation is numbered below the log it created, so the
 * worker deletes it and makes another.
 *
 * <h2>Group commit</h2>
 * A synced writer whose position is not yet durable enters engine-base's {@link GroupCommit} with a request
 * for its position: the first to find no fsync running leads one; every writer arriving while it runs queues
 * and rides the next fsync, which the finishing leader hands to one of them at once, after briefly gathering
 * company; each covered writer is woken on its own. A group's work ({@link #syncGroup}) is one
 * {@link #leadSync}, which writes out and fsyncs everything appended so far: every member appended before it
 * entered, so that one fsync covers the whole group. A queued writer that an fsync covered (it appended before
 * the leader's snapshot but queued after the group was taken), or whose position a sealed log's final fsync
 * made durable, is released when that group finishes, without waiting for the next fsync.
 *
 * <h2>Locks and invariants</h2>
 * <ul>
 *   <li>{@code logLock} belongs to the commit pipeline, which also orders sequence numbers and memtable
 *       admission under it. Here it guards the current log, its writer's buffer, {@code base}, the spare log,
 *       {@code sealed} and {@code closing}. It is held for buffer copies and {@code write}s, never across a
 *       log's fsync; only the rare inline log creation syncs the directory under it.</li>
 *   <li>{@code syncLock} is taken before {@code logLock}, never after. Its holder is the only thread that
 *       fsyncs or closes a sealed log, and the only one that raises the durable position. A leader snapshots,
 *       under {@code logLock}, the sealed logs and the current log's end together, fsyncs the sealed ones, then
 *       the current one, and only then raises the position. So a synced write acknowledged in a new log implies
 *       the old logs' tails are durable.</li>
 *   <li>The group commit's queue lock is a leaf: it guards only the queue of synced writers waiting for the
 *       next fsync. Asking a queued writer whether it is covered reads the volatile durable position.</li>
 *   <li>A failed write, fsync or file creation, here or on the log worker, is recorded in the shared
 *       {@link StickyFailure} and is final; a log worker failure no caller saw is reported by {@link #close()}.
 *       The failure's waker stops the group commit, which wakes every waiting synced writer to see it.</li>
 *   <li>Recovery relies on the predecessor record: a log that lost its unsynced tail is followed by logs
 *       holding nothing synced, so dropping them keeps the recovered state a prefix.</li>
 * </ul>
 *
 * <p>Shutdown: the caller must make sure no append, {@link #makeDurable} or {@link #syncLogsBelow} is in
 * progress or will start, then call {@link #close()}; it waits up to a minute for the log worker's current
 * task (a file creation or fsync), then syncs and closes every log.
 */
public final class WriteAheadLog {

    private final System.Logger log;
    private static final LogFile[] NO_LOGS = new LogFile[0];

    private final FileSystem fs;
    private final Path dir;
    private final LongFunction<Path> logPath;
    private final LongSupplier fileNumbers;
    private final ReentrantLock logLock;
    private final StickyFailure failure;
    private final ReentrantLock syncLock = new ReentrantLock();
    /**
     * False when the database runs without a log ({@code Options.withWriteAheadLog}): logs are still created,
     * rotated and deleted, so the files and manifest look as they always do, but nothing is written to them.
     */
    private final boolean appending;
    /** Synced writers wait here for the fsync that covers them; see {@link #syncGroup}. */
    private final GroupCommit groupCommit = new GroupCommit(this::syncGroup, Long.MAX_VALUE);
    /** Every log byte below this position is durable. Raised only by syncLock's holder, so it only grows. */
    private volatile long durablePosition;
    /** Runs sealed logs' final fsyncs and spare log creation, in submission order, off every writer's path. */
    private final LogWorker worker;
    private final LongAdder syncs = new LongAdder();
    private final LongAdder syncedCommits = new LongAdder();

    // Guarded by logLock.
    private LogFile current;
    private long base;
    /** The next log, created and directory-synced by the log worker; null until it is ready. */
    private LogFile spare;
    /** Whether a spare log creation is queued or running on the log worker. */
    private boolean spareRequested;
    /** Logs sealed by rotations whose final fsync has not completed, oldest first. */
    private final ArrayDeque<LogFile> sealed = new ArrayDeque<>();
    /** Rotations that found no spare log and created the next log under logLock. */
    private long createdInline;
    private boolean closing;

    private volatile long flushedPosition;
    private volatile long loggedBatchBytes;

    /**
     * Creates log {@code logNumber} and starts the log worker, which prepares the next one.
     *
     * @param logPath the name of the log with a given number, in {@code dir}
     * @param logLock the commit pipeline's log lock (see the type comment)
     */
    public WriteAheadLog(FileSystem fs, Path dir, LongFunction<Path> logPath, LongSupplier fileNumbers,
                         long logNumber, ReentrantLock logLock, StickyFailure failure, boolean appending,
                         System.Logger log) throws IOException {
        this.log = log;
        this.appending = appending;
        this.fs = fs;
        this.dir = dir;
        this.logPath = logPath;
        this.fileNumbers = fileNumbers;
        this.logLock = logLock;
        this.failure = failure;
        this.worker = new LogWorker(dir);
        try {
            this.current = open(logNumber);
        } catch (IOException | RuntimeException e) {
            worker.abandon();
            throw e;
        }
        failure.onFailure(groupCommit::stop);
        logLock.lock();
        try {
            requestSpare();
        } finally {
            logLock.unlock();
        }
    }

    /**
     * Appends an encoded batch to the current log's buffer. Caller holds the log lock.
     *
     * @return the position just past the batch, for {@link #makeDurable}
     */
    public long append(MemorySegment batch) throws IOException {
        if (!appending) {
            return end();
        }
        current.writer.append(batch);
        loggedBatchBytes += batch.byteSize(); // under logLock: a single writer, so no lost update
        return base + current.writer.size();
    }

    /** The position past everything appended so far. Caller holds the log lock. */
    public long end() {
        return base + current.writer.size();
    }

    /** The current log's number: logs numbered below it hold nothing appended after the last rotation. */
    public long currentLogNumber() {
        logLock.lock();
        try {
            return current.number;
        } finally {
            logLock.unlock();
        }
    }

    /**
     * Seals the current log and continues in a new one (see the type comment). Caller holds the log lock.
     *
     * @return the new log's number
     */
    public long rotate() throws IOException {
        LogFile old = current;
        // Writers whose batches are in this buffer return once flushedPosition covers them: hand it to the OS
        // now, as they would, since later flushes go to the new log.
        old.writer.flush();
        old.end = base + old.writer.size();
        flushedPosition = old.end;
        LogFile fresh = spare;
        spare = null;
        if (fresh == null) {
            fresh = open(fileNumbers.getAsLong());
            createdInline++;
        }
        if (appending) {
            fresh.writer.append(ByteBuffer.wrap(PredecessorRecord.encode(old.number, old.writer.size())));
        }
        sealed.addLast(old);
        base = old.end;
        current = fresh;
        worker.execute(this::syncSealedLogs);
        requestSpare();
        return fresh.number;
    }

    /**
     * Writes buffered log bytes up to {@code end} to the OS before returning, and fsyncs them if asked, so a
     * process crash (or with {@code sync}, a machine crash) never loses them.
     *
     * @throws UncheckedIOException if the log failed, now or earlier
     */
    public void makeDurable(long end, boolean sync) {
        // A synced writer leaves the write syscall to the fsync leader, which writes out every buffered batch
        // at once: one syscall per group instead of one per writer, so more writers fit into each fsync.
        if (!sync && flushedPosition < end) {
            logLock.lock();
            try {
                failure.check("database failed earlier; reopen to recover");
                if (flushedPosition < end) {
                    current.writer.flush();
                    flushedPosition = base + current.writer.size();
                }
            } catch (IOException e) {
                throw failed(e);
            } finally {
                logLock.unlock();
            }
        }
        if (sync) {
            if (durablePosition < end) {
                SyncRequest request = new SyncRequest(end);
                groupCommit.enter(request); // the group's leader gets what its fsync threw
                if (request.failure() != null) {
                    failure.check("database failed earlier; reopen to recover");
                    throw new IllegalStateException("log sync failed without a recorded failure", request.failure());
                }
            }
            syncedCommits.increment();
        }
    }

    /** A synced writer's wait for the log position just past its batch. */
    private final class SyncRequest extends GroupCommit.Request {
        final long position;

        SyncRequest(long position) {
            super(false, 0, true);
            this.position = position;
        }

        @Override
        protected boolean alreadyServed() {
            return durablePosition >= position;
        }
    }

    /**
     * The group commit's work: one fsync for the whole group. Each member appended before it entered, and the
     * group was taken before {@link #leadSync} snapshots the log's end, so that fsync covers every member.
     */
    private void syncGroup(List<GroupCommit.Request> group) {
        long highest = 0;
        for (GroupCommit.Request r : group) {
            highest = Math.max(highest, ((SyncRequest) r).position);
        }
        if (durablePosition < highest) { // else a sealed log's final fsync made them durable meanwhile
            leadSync();
        }
        for (GroupCommit.Request r : group) {
            r.succeed(0);
        }
    }

    /**
     * Writes out the log buffer and fsyncs it, after any sealed log whose final fsync is still pending: the
     * snapshot of both is taken under one hold of logLock, so a rotation cannot slip a newly sealed log in
     * between, then raises the durable position. Runs on the group commit's leader, one at a time. Any failure
     * is final: it is recorded, which stops the group commit.
     */
    private void leadSync() {
        syncLock.lock();
        try {
            WritableFile file;
            long target;
            LogFile[] older;
            logLock.lock();
            try {
                failure.check("database failed earlier; reopen to recover");
                current.writer.flush();
                target = base + current.writer.size();
                flushedPosition = target;
                file = current.file;
                older = sealed.isEmpty() ? NO_LOGS : sealed.toArray(NO_LOGS);
            } finally {
                logLock.unlock();
            }
            syncSealed(older);
            file.sync();
            syncs.increment();
            raiseDurable(target);
        } catch (IOException e) {
            throw failed(e);
        } catch (RuntimeException e) {
            failure.record(e, false);
            throw e;
        } finally {
            syncLock.unlock();
        }
    }

    /**
     * Fsyncs sealed logs (oldest first, a prefix of {@code sealed}), raises the synced position to the last
     * one's end, then drops them from {@code sealed} and closes them. Caller holds syncLock, which is what lets
     * it close the files: every other user of a sealed log's file holds syncLock too.
     */
    private void syncSealed(LogFile[] logs) throws IOException {
        if (logs.length == 0) {
            return;
        }
        for (LogFile l : logs) {
            // Not counted in syncs: that counter is about fsyncs serving synced commits (group commit).
            l.file.sync();
        }
        raiseDurable(logs[logs.length - 1].end);
        logLock.lock();
        try {
            for (LogFile l : logs) {
                if (sealed.pollFirst() != l) {
                    throw new IllegalStateException("sealed logs synced out of order");
                }
            }
        } finally {
            logLock.unlock();
        }
        for (LogFile l : logs) {
            l.writer.close();
        }
    }

    /** Caller holds syncLock, which makes it the only writer of the durable position. */
    private void raiseDurable(long position) {
        if (position > durablePosition) {
            durablePosition = position;
        }
    }

    /** Log worker: the final fsync of the logs sealed so far, so synced writers rarely have to do it. */
    private void syncSealedLogs() {
        syncLock.lock();
        try {
            LogFile[] logs;
            logLock.lock();
            try {
                if (failure.failed() || sealed.isEmpty()) {
                    return;
                }
                logs = sealed.toArray(NO_LOGS);
            } finally {
                logLock.unlock();
            }
            syncSealed(logs);
        } catch (IOException | RuntimeException e) {
            failFromWorker(e);
        } finally {
            syncLock.unlock();
        }
    }

    /**
     * Makes every log numbered below {@code logNumber} durable, fsyncing any still waiting for its final fsync
     * (normally the log worker has done it already). A flush calls this before its manifest edit moves the log
     * number past those logs: one family's edit may survive a crash without another's, and the other family
     * then replays the old log, which must not have lost its tail while the first family's table kept the same
     * writes. After {@link #close()} there is nothing left to do: close synced every log.
     */
    public void syncLogsBelow(long logNumber) throws IOException {
        syncLock.lock();
        try {
            LogFile[] logs;
            logLock.lock();
            try {
                Throwable cause = failure.cause();
                if (cause != null) {
                    throw new IOException("the log failed earlier", cause);
                }
                List<LogFile> below = new ArrayList<>();
                for (LogFile l : sealed) {
                    if (l.number >= logNumber) {
                        break;
                    }
                    below.add(l);
                }
                logs = below.toArray(NO_LOGS);
            } finally {
                logLock.unlock();
            }
            syncSealed(logs);
        } catch (IOException e) {
            failure.record(e, false);
            throw e;
        } finally {
            syncLock.unlock();
        }
    }

    /** Queues the creation of the next spare log unless one is ready or on its way. Caller holds logLock. */
    private void requestSpare() {
        if (spare == null && !spareRequested && !closing && !failure.failed()) {
            spareRequested = true;
            worker.execute(this::prepareSpare);
        }
    }

    /**
     * Log worker: creates the next log and makes its name durable, so a rotation only swaps it in. A crash
     * leaves it empty, numbered above every log in use: recovery reads nothing from it and deletes it with the
     * other old logs, and the next file number passes it (recovery looks at every file name).
     */
    private void prepareSpare() {
        try {
            while (true) {
                logLock.lock();
                try {
                    if (closing || failure.failed()) {
                        spareRequested = false;
                        return;
                    }
                } finally {
                    logLock.unlock();
                }
                long number = fileNumbers.getAsLong();
                Path path = logPath.apply(number);
                WritableFile file = fs.create(path);
                boolean kept = false;
                boolean stale = false;
                try {
                    fs.syncDirectory(dir);
                    logLock.lock();
                    try {
                        // Recovery replays logs in number order, so they must be used in that order. A rotation
                        // that found no spare created a log meanwhile, numbered after this one: start over.
                        stale = number < current.number;
                        if (!stale) {
                            spareRequested = false;
                            if (!closing && !failure.failed()) {
                                spare = new LogFile(number, file);
                                kept = true;
                            }
                        }
                    } finally {
                        logLock.unlock();
                    }
                } finally {
                    if (!kept) {
                        file.close(); // an empty file, harmless: recovery deletes empty logs
                    }
                }
                if (!stale) {
                    return;
                }
                try {
                    fs.delete(path);
                } catch (IOException e) {
                    log.log(System.Logger.Level.WARNING, "could not delete unused log " + path, e);
                }
            }
        } catch (IOException | RuntimeException e) {
            failFromWorker(e);
        }
    }

    private LogFile open(long number) throws IOException {
        WritableFile file = fs.create(logPath.apply(number));
        // The new name must be durable before any synced write in it is acknowledged.
        fs.syncDirectory(dir);
        return new LogFile(number, file);
    }

    private void failFromWorker(Exception e) {
        failure.record(e instanceof IOException io ? io : new IOException("log worker failed", e), true);
    }

    private UncheckedIOException failed(IOException e) {
        failure.record(e, false);
        return new UncheckedIOException("write failed; the database now refuses writes, reopen to recover", e);
    }

    /** Stops spare log creation: from now on the log set only shrinks. Caller holds the log lock. */
    public void beginClose() {
        closing = true;
    }


    /**
     * Waits up to a minute for the log worker, then syncs (unless the write path failed) and closes the sealed
     * logs and the current one, oldest first, and closes an unused spare. The caller has called
     * {@link #beginClose()} and waited until no writer uses the log. Idempotent.
     *
     * @throws IOException if a sync or close failed, or the worker did not finish in time
     */
    public void close() throws IOException {
        worker.close();
        syncLock.lock();
        try {
            closeLogs();
        } finally {
            syncLock.unlock();
        }
    }

    /** Syncs (unless failed) and closes every log still open, oldest first. Caller holds syncLock. */
    private void closeLogs() throws IOException {
        List<LogFile> open;
        LogFile unusedSpare;
        logLock.lock();
        try {
            open = new ArrayList<>(sealed);
            sealed.clear();
            open.add(current);
            unusedSpare = spare;
            spare = null;
            if (unusedSpare != null) {
                open.add(unusedSpare); // empty; the next open deletes it
            }
        } finally {
            logLock.unlock();
        }
        IOException error = null;
        for (LogFile l : open) {
            try {
                if (!failure.failed() && error == null && l != unusedSpare) {
                    l.writer.sync();
                }
            } catch (IOException e) {
                error = e;
            }
            try {
                l.writer.close();
            } catch (IOException e) {
                if (error == null) {
                    error = e;
                } else {
                    error.addSuppressed(e);
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }

    /** For tests: waits until the log worker has run everything queued so far (nothing if it has stopped). */
    public void awaitWorker() throws InterruptedException {
        worker.awaitQueued();
    }

    /** Rotations that found no spare log ready and created the next log under the log lock. */
    public long createdInline() {
        logLock.lock();
        try {
            return createdInline;
        } finally {
            logLock.unlock();
        }
    }

    /** Fsyncs led for synced writes and {@link #makeDurable} calls; sealed logs' final fsyncs are not counted. */
    public long syncCount() {
        return syncs.sum();
    }

    /** Synced {@link #makeDurable} calls served; with {@link #syncCount()} it shows how well group commit works. */
    public long syncedCommits() {
        return syncedCommits.sum();
    }

    /** Log bytes handed to the OS since open: positions continue across rotations, so this is a byte count. */
    public long bytesWritten() {
        return flushedPosition;
    }

    /** Batch bytes appended since open, record framing excluded. */
    public long loggedBatchBytes() {
        return loggedBatchBytes;
    }
}
