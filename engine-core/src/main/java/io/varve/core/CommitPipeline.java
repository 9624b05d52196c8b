package io.varve.core;

import io.varve.core.base.InternalKey;
import io.varve.core.batch.BatchFormat;
import io.varve.core.batch.BatchReader;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.memtable.Memtable;
import io.varve.core.wal.PredecessorRecord;
import io.varve.core.wal.WalWriter;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The write path: turns a batch into a sequenced, logged, applied and finally visible write.
 *
 * <h2>Stages</h2>
 * <ol>
 *   <li><b>Sequence and log</b>, under {@code logLock}: allocate the batch's sequence numbers, append it to
 *       the WAL's in-memory buffer, pick its memtable (rotating to a fresh memtable and log when the current
 *       one has no room), and, in ordered mode, enqueue it on {@code pending}. Because all four happen under
 *       one lock, log order = sequence order = queue order. The section copies bytes; its only I/O is the
 *       {@code write} of the old log's buffer on a rotation (see below).</li>
 *   <li><b>Apply</b>, with no lock: insert the records into the memtable. Writers apply concurrently; the
 *       memtable is a lock-free skiplist, and entries above the visible sequence are invisible to readers.</li>
 *   <li><b>Durable</b>: the batch's bytes must reach the OS (a {@code write} syscall) before the call
 *       returns, so a process crash never loses an acknowledged write. Whoever takes {@code logLock} next
 *       writes everything buffered, for all waiting writers at once. Synced writers then take
 *       {@code syncLock}; the holder writes out the buffer and fsyncs once for every batch logged so far,
 *       and writers queued behind it usually find their bytes already synced: group commit without a
 *       dedicated thread.</li>
 *   <li><b>Publish</b> (ordered mode): a batch that is applied and durable is marked ready; whoever holds
 *       {@code publishLock} pops ready batches off the head of {@code pending} and raises
 *       {@link #visibleSequence()} to each one's last sequence, then unparks its writer. Visibility therefore
 *       advances strictly in sequence order, so readers never see part of a batch, snapshots never change,
 *       and a writer that returns can read its own write.</li>
 * </ol>
 *
 * <p>In unordered mode (see {@link Options#withUnorderedWrite}) there is no queue: a batch becomes visible
 * as soon as it is durable, before its memtable insert, and the writer returns after its own insert. That
 * keeps read-your-own-writes and drops batch atomicity for readers and snapshot immutability.
 *
 * <p>Ingestion ({@link #reserveIngest}) takes its sequence number from the same counter under the same lock
 * and, in ordered mode, publishes it through the same queue as a one-entry batch with nothing to apply: the
 * visible sequence stays a single watermark raised only in queue order.
 *
 * <h2>Rotation without I/O under the log lock</h2>
 * The log worker thread keeps a <em>spare log</em> ready: the next log file, created and its name made durable
 * (directory sync) before it is needed. A rotation, under {@code logLock} alone, hands the old log's buffer
 * to the OS (one {@code write}, as any writer does under this lock), swaps the spare in, appends a
 * {@link PredecessorRecord} naming the old log and its final length, and queues the old log on
 * {@code sealedLogs}. The old log's final fsync then runs on the log worker, which also creates the next
 * spare. If no spare is ready (two rotations within one file creation), the rotation creates the log itself,
 * the only case where it still waits for file-system metadata I/O under the lock. Logs are used in the order of
 * their numbers, the order recovery replays them: a spare finished after such a rotation is numbered below the
 * log it created, so the worker deletes it and makes another.
 *
 * <h2>Locks and invariants</h2>
 * <ul>
 *   <li>Lock order: {@code syncLock} before {@code logLock}; {@code publishLock} is never taken while holding
 *       either, so no cycle exists.</li>
 *   <li>{@code logLock} guards the sequence counter, the WAL writer's buffer, the current log, the spare
 *       log, {@code sealedLogs}, the current memtables and their reservations.</li>
 *   <li>{@code syncedPosition} (positions run on across logs) is written only under {@code syncLock}, and
 *       every byte below it is durable: an fsync covers logs strictly oldest first. A leader snapshots, under
 *       {@code logLock}, the sealed logs and the current log's end together, fsyncs the sealed ones, then the
 *       current one, and only then raises the position. So a SYNC write acknowledged in a new log implies the
 *       old logs' tails are durable, and any sync of a log implies every older log is completely synced.</li>
 *   <li>A sealed log is closed only after its fsync, by the {@code syncLock} holder, which is the only
 *       thread that may still use its file; rotation never closes a file.</li>
 *   <li>Recovery relies on the predecessor record: a log that lost its unsynced tail is followed by logs
 *       holding nothing synced (previous point), so dropping them keeps the recovered state a prefix.</li>
 *   <li>A flush calls {@link #syncLogsBelow} before its manifest edit moves the log number past a sealed log,
 *       so no family's edit can make a log obsolete whose tail another family may still need.</li>
 *   <li>Memtable room: a batch is admitted to a memtable when its bytes in use, plus a worst-case bound on
 *       what admitted writes have yet to insert, plus its own bound, fit the capacity; see
 *       {@link ActiveMemtable#fits}.
 *       A concurrent insert therefore never finds its memtable full.</li>
 *   <li>A failed log write, fsync or file creation, in a writer or on the log worker, is final:
 *       {@link #failure} is set once, every queued writer is woken with it, and every later commit is refused.
 *       The failed batches stay above the visible sequence, so readers never see a write whose durability is
 *       unknown. A log worker failure that no caller saw is reported by {@link #close()}.</li>
 * </ul>
 */
final class CommitPipeline {

    private static final System.Logger LOG = System.getLogger(CommitPipeline.class.getName());

    /**
     * Upper bound on a memtable node's bytes beyond its key and value: the skiplist node (see the memtable's
     * {@code SkiplistNodeLayout}) has a 20-byte header, a tower of 4 bytes per level up to 20 levels and at most
     * 7 bytes of alignment padding, 107 bytes in all. Only a bound: {@link ActiveMemtable#fits} charges it to
     * writes not yet inserted, and counts inserted ones at their real size.
     */
    static final int ENTRY_OVERHEAD = 128;
    private static final int MEMTABLE_SLACK = 64 << 10;
    /** Memtable node links are int offsets, so an arena stays below 2 GiB. */
    private static final long MAX_MEMTABLE_BYTES = (1L << 31) - (1L << 20);
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /** One family's memtable sealed by a rotation, and the fresh one that replaced it. */
    record Sealed(int family, ActiveMemtable memtable, Memtable fresh) {
    }

    /** A column family's first mutable memtable and its write buffer size. */
    record FamilyMemtable(int family, Memtable memtable, long writeBufferSize) {
    }

    /** What the pipeline tells the database when the memtable set changes. */
    interface MemtableListener {
        /**
         * Called under the log lock after {@code sealed} stopped taking writes and {@code fresh} took over.
         * Logs numbered below {@code newLogNumber} hold nothing written after {@code sealed}'s contents.
         */
        void rotated(java.util.List<Sealed> sealed, long sealedLastSequence, long newLogNumber);
    }

    private static final class Commit {
        final Thread writer = Thread.currentThread();
        /** An ingestion's placeholder: its thread waits to reach the head of the queue (see reserveIngest). */
        final boolean ingestion;
        long firstSequence;
        long lastSequence;
        volatile boolean ready;
        volatile boolean published;

        Commit(boolean ingestion) {
            this.ingestion = ingestion;
        }
    }

    /**
     * A sequence number reserved for an ingestion by {@link #reserveIngest}. Finish it exactly once with
     * {@link #finishIngest}, whether the files were installed or the attempt was abandoned (an abandoned
     * number is simply never used: sequences may have gaps, never repeats).
     */
    static final class IngestReservation {
        final long sequence;
        /** The placeholder in {@code pending}; null in unordered mode. */
        private final Commit placeholder;

        private IngestReservation(long sequence, Commit placeholder) {
            this.sequence = sequence;
            this.placeholder = placeholder;
        }
    }

    private static final class Log {
        final long number;
        final WritableFile file;
        final WalWriter writer;
        /** Set when sealed (under logLock): the pipeline position of the log's last byte plus one. */
        long end;

        Log(long number, WritableFile file) {
            this.number = number;
            this.file = file;
            this.writer = new WalWriter(file, number);
        }
    }

    private final FileSystem fs;
    private final Path dir;
    private final long writeBufferSize;
    private final boolean unordered;
    private final LongSupplier fileNumbers;
    private final MemtableListener listener;
    /** Runs {@link #prepareSpare()}: zeroing a 64 MiB arena belongs on a background thread, not a writer's. */
    private final java.util.concurrent.Executor background;

    private final ReentrantLock logLock = new ReentrantLock();
    private final ReentrantLock syncLock = new ReentrantLock();
    private final ReentrantLock publishLock = new ReentrantLock();
    // The atomic-field-updater variant: the default JCTools queues use the JDK-internal Unsafe class.
    private final MpscUnboundedAtomicArrayQueue<Commit> pending = new MpscUnboundedAtomicArrayQueue<>(1024);

    // Guarded by logLock.
    private long nextSequence;
    private Log log;
    private long logBase;
    /**
     * Each column family's mutable memtable, indexed by family id (null: no such family). Replaced, never
     * changed in place, so a writer can keep the array it saw under the lock while it applies.
     */
    private ActiveMemtable[] mutables;
    private boolean closed;
    private volatile Memtable spare;
    private long spareCapacity;
    /** The next log, created and directory-synced by the log worker; null until it is ready. */
    private Log spareLog;
    /** Whether a spare log creation is queued or running on the log worker. */
    private boolean spareLogRequested;
    /** Logs sealed by rotations whose final fsync has not completed, oldest first. */
    private final java.util.ArrayDeque<Log> sealedLogs = new java.util.ArrayDeque<>();
    /** Rotations that found no spare log and created the next log under logLock. */
    private long logsCreatedInline;

    /** Runs old logs' final fsyncs and spare log creation, in submission order, off every writer's path. */
    private final java.util.concurrent.ExecutorService logWorker;
    /** A log worker failure no caller has been told about yet; close() reports it. */
    private volatile boolean logFailureUnreported;

    private volatile long flushedPosition;
    private volatile long syncedPosition;
    private volatile long visibleSequence;
    private volatile Throwable failure;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final ReentrantLock drainLock = new ReentrantLock();
    private final Condition drained = drainLock.newCondition();

    CommitPipeline(FileSystem fs, Path dir, Options options, LongSupplier fileNumbers, long lastSequence,
                   java.util.List<FamilyMemtable> families, long logNumber, MemtableListener listener,
                   java.util.concurrent.Executor background) throws IOException {
        this.fs = fs;
        this.dir = dir;
        this.writeBufferSize = options.writeBufferSize();
        this.unordered = options.unorderedWrite();
        this.fileNumbers = fileNumbers;
        this.listener = listener;
        this.background = background;
        this.nextSequence = lastSequence + 1;
        this.visibleSequence = lastSequence;
        int maxId = families.stream().mapToInt(FamilyMemtable::family).max().orElse(0);
        this.mutables = new ActiveMemtable[maxId + 1];
        for (FamilyMemtable f : families) {
            mutables[f.family()] = new ActiveMemtable(f.family(), f.memtable(), memtableCapacity(f.writeBufferSize(), 0),
                    f.writeBufferSize());
        }
        this.logWorker = java.util.concurrent.Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
                .name("varve-log " + dir.getFileName()).unstarted(r));
        try {
            this.log = openLog(logNumber);
        } catch (IOException | RuntimeException e) {
            logWorker.shutdown();
            throw e;
        }
        logLock.lock();
        try {
            requestSpareLog();
        } finally {
            logLock.unlock();
        }
    }

    /** The newest sequence readers may see. */
    long visibleSequence() {
        return visibleSequence;
    }

    /** The sequence the next write will get, minus one: the newest sequence handed out so far. */
    long lastAllocatedSequence() {
        logLock.lock();
        try {
            return nextSequence - 1;
        } finally {
            logLock.unlock();
        }
    }

    /**
     * Fsync rounds led for synced commits and syncWal (sealed logs synced in such a round, by the log worker or
     * at close are not counted); with {@link #commitsSynced()} it shows how well group commit works.
     */
    long syncCount() {
        return syncs.sum();
    }

    long commitsSynced() {
        return syncedCommits.sum();
    }

    /** Log bytes handed to the OS since open: positions continue across rotations, so this is a byte count. */
    long logBytesWritten() {
        return flushedPosition;
    }

    /** Batch bytes logged since open, record framing excluded: the figure RocksDB's WAL_FILE_BYTES counts. */
    long loggedBatchBytes() {
        return loggedBatchBytes;
    }

    private volatile long loggedBatchBytes;

    private final java.util.concurrent.atomic.LongAdder syncs = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder syncedCommits = new java.util.concurrent.atomic.LongAdder();
    private final ReentrantLock syncWaitLock = new ReentrantLock();
    private final Condition syncDone = syncWaitLock.newCondition();

    /**
     * Runs one batch through the pipeline; returns once it is durable as requested and visible to reads.
     *
     * @param batch the encoded batch (its sequence field is filled in here)
     */
    void commit(byte[] batch, int count, long payloadBytes, boolean sync, int[] families) {
        if (count == 0) {
            return;
        }
        Commit commit = new Commit(false);
        MemorySegment segment = MemorySegment.ofArray(batch);
        long reserve = reserve(payloadBytes, count);
        if (reserve > MAX_MEMTABLE_BYTES - MEMTABLE_SLACK) {
            throw new IllegalArgumentException("write batch needs " + reserve + " bytes of memtable; the limit is "
                    + (MAX_MEMTABLE_BYTES - MEMTABLE_SLACK));
        }
        ActiveMemtable[] targets;
        long end;
        boolean rotated = false;
        logLock.lock();
        try {
            checkUsable();
            if (!fits(families, reserve)) {
                rotate(families, reserve);
                rotated = true;
            }
            commit.firstSequence = nextSequence;
            commit.lastSequence = nextSequence + count - 1;
            nextSequence += count;
            BatchFormat.setSequence(segment, commit.firstSequence);
            log.writer.append(ByteBuffer.wrap(batch));
            loggedBatchBytes += batch.length; // under logLock: a single writer, so no lost update
            end = logBase + log.writer.size();
            targets = mutables;
            for (int family : families) {
                targets[family].assign(reserve);
            }
            inFlight.incrementAndGet();
            if (!unordered) {
                pending.offer(commit);
            }
        } catch (IOException e) {
            throw fail(e);
        } finally {
            logLock.unlock();
        }
        if (rotated) {
            background.execute(this::prepareSpare);
        }
        try {
            if (unordered) {
                makeDurable(end, sync);
                raiseVisible(commit.lastSequence);
                applyTo(segment, targets, families, reserve);
                return;
            }
            applyTo(segment, targets, families, reserve);
            makeDurable(end, sync);
            commit.ready = true;
            publishReady();
            awaitPublished(commit);
        } finally {
            if (inFlight.decrementAndGet() == 0 && closedVolatile) {
                signalDrained();
            }
        }
    }

    private volatile boolean closedVolatile;

    private void checkUsable() {
        if (closed) {
            throw new IllegalStateException("database is closed");
        }
        Throwable cause = failure;
        if (cause != null) {
            logFailureUnreported = false;
            throw new UncheckedIOException("database failed earlier and refuses writes; reopen to recover",
                    cause instanceof IOException io ? io : new IOException(cause));
        }
    }

    /** Memtable bytes to reserve for a batch: its keys and values plus a bound on each node's overhead. */
    static long reserve(long payloadBytes, long count) {
        return payloadBytes + count * ENTRY_OVERHEAD;
    }

    /** Arena size for a memtable taking {@code writeBufferSize} of writes, or one batch of {@code reserve}. */
    static long memtableCapacity(long writeBufferSize, long reserve) {
        return Math.max(writeBufferSize, reserve) + MEMTABLE_SLACK;
    }

    /**
     * Whether every family the batch writes has room for {@code reserve} more bytes. Caller holds logLock.
     *
     * @throws IllegalArgumentException if one of the families does not exist (never created, or dropped)
     */
    private boolean fits(int[] families, long reserve) {
        boolean fits = true;
        for (int family : families) {
            ActiveMemtable m = family < mutables.length ? mutables[family] : null;
            if (m == null) {
                throw new IllegalArgumentException("column family " + family + " does not exist or was dropped");
            }
            fits &= m.fits(reserve);
        }
        return fits;
    }

    private static void applyTo(MemorySegment batch, ActiveMemtable[] targets, int[] families, long reserve) {
        try {
            apply(batch, family -> targets[family].memtable);
        } finally {
            for (int family : families) {
                targets[family].finishedApplying(reserve);
            }
        }
    }

    /**
     * Inserts every record of an encoded, sequenced batch into its column family's memtable; records of a
     * family for which {@code memtableFor} returns null are skipped (recovery uses that for families that were
     * dropped or whose records are already in tables).
     */
    static void apply(MemorySegment batch, java.util.function.IntFunction<Memtable> memtableFor) {
        try {
            BatchReader reader = new BatchReader(batch);
            long sequence = reader.sequence();
            while (reader.next()) {
                long entrySequence = sequence++;
                Memtable memtable = memtableFor.apply(reader.columnFamily());
                if (memtable == null) {
                    continue;
                }
                MemorySegment value = reader.value() == null ? EMPTY : reader.value();
                if (!memtable.add(reader.key(), InternalKey.trailer(entrySequence, reader.kind()), value)) {
                    throw new IllegalStateException("memtable full despite reservation: a bug in ENTRY_OVERHEAD");
                }
            }
        } catch (BatchReader.MalformedBatchException e) {
            // The batch was encoded by this process a moment ago: failing to parse it is a bug, not bad input.
            throw new IllegalStateException("batch encoding is broken", e);
        }
    }

    /** Writes buffered log bytes up to {@code end} to the OS, and fsyncs them if asked. */
    private void makeDurable(long end, boolean sync) {
        // A synced writer leaves the write syscall to the fsync leader, which writes out every buffered batch
        // at once: one syscall per group instead of one per writer, so more writers fit into each fsync.
        if (!sync && flushedPosition < end) {
            logLock.lock();
            try {
                checkFailure();
                if (flushedPosition < end) {
                    log.writer.flush();
                    flushedPosition = logBase + log.writer.size();
                }
            } catch (IOException e) {
                throw fail(e);
            } finally {
                logLock.unlock();
            }
        }
        if (sync) {
            syncTo(end);
            syncedCommits.increment();
        }
    }

    /**
     * Group commit. The first writer to find no fsync running becomes the leader: it writes out every
     * buffered batch and fsyncs once for all of them. The others wait on {@code syncWaitLock} until the
     * synced position covers their bytes; the leader wakes them all at once, and those still not covered
     * (they logged after the leader took its snapshot) race to lead the next fsync. Waiting on a condition
     * rather than queueing on the leader's lock matters: a queue would hand the lock to followers one at
     * a time just so each can find it has nothing to do, and writers arriving meanwhile would miss the
     * next fsync.
     */
    private void syncTo(long end) {
        while (syncedPosition < end) {
            checkFailure();
            if (syncLock.tryLock()) {
                try {
                    if (syncedPosition < end) {
                        leadSync();
                    }
                } finally {
                    syncLock.unlock();
                    wakeSyncWaiters();
                }
            } else {
                syncWaitLock.lock();
                try {
                    // Re-checked under syncWaitLock: the leader signals under it after unlocking syncLock.
                    while (syncedPosition < end && syncLock.isLocked() && failure == null) {
                        syncDone.awaitUninterruptibly();
                    }
                } finally {
                    syncWaitLock.unlock();
                }
            }
        }
    }

    /**
     * Writes out the log buffer and fsyncs it, after any sealed log whose final fsync is still pending: the
     * snapshot of both is taken under one hold of logLock, so a rotation cannot slip a newly sealed log in
     * between. Caller holds syncLock.
     */
    private void leadSync() {
        try {
            WritableFile file;
            long target;
            Log[] sealed;
            logLock.lock();
            try {
                checkFailure();
                log.writer.flush();
                target = logBase + log.writer.size();
                flushedPosition = target;
                file = log.file;
                sealed = sealedLogs.isEmpty() ? NO_LOGS : sealedLogs.toArray(NO_LOGS);
            } finally {
                logLock.unlock();
            }
            syncSealed(sealed);
            file.sync();
            syncs.increment();
            syncedPosition = target;
        } catch (IOException e) {
            throw fail(e);
        }
    }

    private static final Log[] NO_LOGS = new Log[0];

    /**
     * Fsyncs sealed logs (oldest first, a prefix of {@code sealedLogs}), raises the synced position to the
     * last one's end, then drops them from {@code sealedLogs} and closes them. Caller holds syncLock, which is
     * what lets it close the files: every other user of a sealed log's file holds syncLock too.
     */
    private void syncSealed(Log[] sealed) throws IOException {
        if (sealed.length == 0) {
            return;
        }
        for (Log l : sealed) {
            // Not counted in syncs: that counter is about fsyncs serving synced commits (group commit).
            l.file.sync();
        }
        long end = sealed[sealed.length - 1].end;
        if (end > syncedPosition) {
            syncedPosition = end;
        }
        logLock.lock();
        try {
            for (Log l : sealed) {
                if (sealedLogs.pollFirst() != l) {
                    throw new IllegalStateException("sealed logs synced out of order");
                }
            }
        } finally {
            logLock.unlock();
        }
        for (Log l : sealed) {
            l.writer.close();
        }
    }

    /** Log worker: the final fsync of the logs sealed so far, so synced writers rarely have to do it. */
    private void syncSealedLogs() {
        syncLock.lock();
        try {
            Log[] sealed;
            logLock.lock();
            try {
                if (failure != null || sealedLogs.isEmpty()) {
                    return;
                }
                sealed = sealedLogs.toArray(NO_LOGS);
            } finally {
                logLock.unlock();
            }
            syncSealed(sealed);
        } catch (IOException | RuntimeException e) {
            failFromLogWorker(e);
        } finally {
            syncLock.unlock();
            wakeSyncWaiters();
        }
    }

    /**
     * Makes every log numbered below {@code logNumber} durable, fsyncing any still waiting for its final
     * fsync (normally the log worker has done it already). A flush calls this before its manifest edit moves
     * the log number past those logs: one family's edit may survive a crash without another's, and the
     * other family then replays the old log, which must not have lost its tail while the first family's
     * table kept the same writes.
     */
    void syncLogsBelow(long logNumber) throws IOException {
        syncLock.lock();
        try {
            Log[] sealed;
            logLock.lock();
            try {
                Throwable cause = failure;
                if (cause != null) {
                    throw new IOException("the log failed earlier", cause);
                }
                java.util.List<Log> below = new java.util.ArrayList<>();
                for (Log l : sealedLogs) {
                    if (l.number >= logNumber) {
                        break;
                    }
                    below.add(l);
                }
                sealed = below.toArray(NO_LOGS);
            } finally {
                logLock.unlock();
            }
            syncSealed(sealed);
        } catch (IOException e) {
            if (failure == null) {
                fail(e);
            }
            throw e;
        } finally {
            syncLock.unlock();
            wakeSyncWaiters();
        }
    }

    /** Queues the creation of the next spare log unless one is ready or on its way. Caller holds logLock. */
    private void requestSpareLog() {
        if (spareLog == null && !spareLogRequested && !closed && failure == null) {
            spareLogRequested = true;
            logWorker.execute(this::prepareSpareLog);
        }
    }

    /**
     * Log worker: creates the next log and makes its name durable, so a rotation only swaps it in. A crash
     * leaves it empty, numbered above every log in use: recovery reads nothing from it and deletes it with the
     * other old logs, and the next file number passes it (recovery looks at every file name).
     */
    private void prepareSpareLog() {
        try {
            while (true) {
                logLock.lock();
                try {
                    if (closed || failure != null) {
                        spareLogRequested = false;
                        return;
                    }
                } finally {
                    logLock.unlock();
                }
                long number = fileNumbers.getAsLong();
                Path path = DbFiles.log(dir, number);
                WritableFile file = fs.create(path);
                boolean kept = false;
                boolean stale = false;
                try {
                    fs.syncDirectory(dir);
                    logLock.lock();
                    try {
                        // Recovery replays logs in number order, so they must be used in that order. A rotation
                        // that found no spare created a log meanwhile, numbered after this one: start over.
                        stale = number < log.number;
                        if (!stale) {
                            spareLogRequested = false;
                            if (!closed && failure == null) {
                                spareLog = new Log(number, file);
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
                    LOG.log(System.Logger.Level.WARNING, "could not delete unused log " + path, e);
                }
            }
        } catch (IOException | RuntimeException e) {
            failFromLogWorker(e);
        }
    }

    private void failFromLogWorker(Exception e) {
        if (failure == null) {
            logFailureUnreported = true;
        }
        fail(e instanceof IOException io ? io : new IOException("log worker failed", e));
    }

    private void wakeSyncWaiters() {
        syncWaitLock.lock();
        try {
            syncDone.signalAll();
        } finally {
            syncWaitLock.unlock();
        }
    }

    private void checkFailure() {
        Throwable cause = failure;
        if (cause != null) {
            logFailureUnreported = false;
            throw new UncheckedIOException("database failed earlier; reopen to recover",
                    cause instanceof IOException io ? io : new IOException(cause));
        }
    }

    /**
     * Publishes the ready batches at the head of the queue. Only the holder of {@code publishLock} touches
     * the queue's consumer side: JCTools' MPSC queues allow a single consumer, and a {@code peek} from
     * another thread racing a {@code poll} can spin forever on a slot that poll already cleared. A writer
     * that finds the lock taken leaves a request instead, which the holder sees after unlocking.
     */
    private void publishReady() {
        publishRequested = true;
        while (publishRequested) {
            if (!publishLock.tryLock()) {
                // The holder re-reads publishRequested after unlocking, so this request cannot be missed.
                return;
            }
            try {
                // Cleared before draining: a ready flag set before a later request is seen by this drain.
                publishRequested = false;
                Commit head;
                while ((head = pending.relaxedPeek()) != null && head.ready) {
                    pending.relaxedPoll();
                    visibleSequence = head.lastSequence;
                    head.published = true;
                    LockSupport.unpark(head.writer);
                }
                if (head != null && head.ingestion) {
                    // Every write before the ingestion is published, hence applied: see awaitEarlierWrites.
                    LockSupport.unpark(head.writer);
                }
            } finally {
                publishLock.unlock();
            }
        }
    }

    private volatile boolean publishRequested;

    private void awaitPublished(Commit commit) {
        while (!commit.published) {
            if (failure != null) {
                checkFailure();
            }
            LockSupport.park(this);
        }
    }

    private void raiseVisible(long sequence) {
        publishLock.lock();
        try {
            if (sequence > visibleSequence) {
                visibleSequence = sequence;
            }
        } finally {
            publishLock.unlock();
        }
    }

    // ---- ingestion

    /**
     * Takes the next sequence number for an ingestion, under {@code logLock} exactly like a batch's: there is
     * one allocator, so no write can share the number, and the ingestion never writes the visible sequence
     * itself (reading the watermark and writing it back is how tikv#19891 moved it backwards). The lock is
     * held for the allocation only, never across I/O.
     *
     * <p>In ordered mode a placeholder joins {@code pending}, so visibility passes the number in order like a
     * batch's. With {@code holdLaterWrites} the placeholder is ready only at {@link #finishIngest}: writes
     * sequenced after the ingestion are applied and made durable meanwhile but become visible only once the
     * ingestion is installed. Without it the placeholder is ready at once and holds nobody back. Unordered
     * mode has no queue and cannot hold later writes back.
     */
    IngestReservation reserveIngest(boolean holdLaterWrites) {
        if (unordered && holdLaterWrites) {
            throw new IllegalStateException("unordered writes cannot be held back behind an ingestion");
        }
        Commit placeholder = unordered ? null : new Commit(true);
        long sequence;
        logLock.lock();
        try {
            checkUsable();
            sequence = nextSequence++;
            inFlight.incrementAndGet();
            if (placeholder != null) {
                placeholder.firstSequence = sequence;
                placeholder.lastSequence = sequence;
                placeholder.ready = !holdLaterWrites;
                pending.offer(placeholder);
            }
        } finally {
            logLock.unlock();
        }
        return new IngestReservation(sequence, placeholder);
    }

    /**
     * Blocks until every write sequenced before {@code reservation} is applied to its memtable, so a check
     * of the memtables sees all of them. Needs a held placeholder (ordered mode): writes before it are
     * published only after being applied, and the publisher wakes the placeholder's thread once it is the
     * head of the queue. No lock is held while waiting.
     *
     * @throws UncheckedIOException if the pipeline failed meanwhile
     */
    void awaitEarlierWrites(IngestReservation reservation) {
        if (reservation.placeholder == null || reservation.placeholder.ready) {
            throw new IllegalStateException("only a reservation that holds later writes can wait for earlier ones");
        }
        while (visibleSequence < reservation.sequence - 1) {
            checkFailure();
            LockSupport.park(this);
        }
    }

    /**
     * Ends a reservation: makes its sequence visible in order (releasing any later writes held behind it)
     * and waits until it is, so reads issued after this returns see what was installed at it.
     *
     * @throws UncheckedIOException if the pipeline failed (the number may then never become visible)
     */
    void finishIngest(IngestReservation reservation) {
        try {
            if (reservation.placeholder == null) {
                raiseVisible(reservation.sequence);
            } else {
                reservation.placeholder.ready = true;
                publishReady();
                awaitPublished(reservation.placeholder);
            }
        } finally {
            if (inFlight.decrementAndGet() == 0 && closedVolatile) {
                signalDrained();
            }
        }
    }

    /** Whether the pipeline runs in unordered mode (no publication queue). */
    boolean unordered() {
        return unordered;
    }

    /**
     * Records the first failure and wakes every writer waiting for publication, since the failed batch at
     * the head of the queue will never become ready.
     */
    private UncheckedIOException fail(IOException e) {
        synchronized (this) {
            if (failure == null) {
                failure = e;
            }
        }
        publishLock.lock();
        try {
            Commit waiting;
            while ((waiting = pending.relaxedPoll()) != null) {
                LockSupport.unpark(waiting.writer);
            }
        } finally {
            publishLock.unlock();
        }
        wakeSyncWaiters();
        return new UncheckedIOException("write failed; the database now refuses writes, reopen to recover", e);
    }

    /**
     * Seals the log and every column family's memtable that holds anything (or that is too small for the
     * batch that asked, {@code reserve} bytes for {@code families}), starting fresh ones. A family whose memtable
     * is empty keeps it: it has nothing in the sealed log. All families rotate together, so one flush empties
     * every log before the new one. Caller holds logLock (only: see the type comment).
     */
    private void rotate(int[] families, long reserve) throws IOException {
        Log old = log;
        // Writers whose batches are in this buffer return once flushedPosition covers them: hand it to the
        // OS now, as they would, since later flushes go to the new log.
        old.writer.flush();
        old.end = logBase + old.writer.size();
        flushedPosition = old.end;
        Log fresh = spareLog;
        spareLog = null;
        if (fresh == null) {
            fresh = openLog(fileNumbers.getAsLong());
            logsCreatedInline++;
        }
        fresh.writer.append(ByteBuffer.wrap(PredecessorRecord.encode(old.number, old.writer.size())));
        sealedLogs.addLast(old);
        logBase = old.end;
        log = fresh;
        long newNumber = fresh.number;
        logWorker.execute(this::syncSealedLogs);
        requestSpareLog();

        ActiveMemtable[] next = mutables.clone();
        java.util.List<Sealed> sealed = new java.util.ArrayList<>();
        for (ActiveMemtable m : mutables) {
            if (m == null) {
                continue;
            }
            long need = contains(families, m.family) ? reserve : 0;
            if (m.isEmpty() && m.fits(need)) {
                continue;
            }
            m.seal();
            long capacity = memtableCapacity(m.writeBufferSize, need);
            Memtable memtable = null;
            if (m.family == BatchFormat.DEFAULT_COLUMN_FAMILY && spare != null) {
                if (spareCapacity >= capacity) {
                    memtable = spare;
                    capacity = spareCapacity;
                } else {
                    spare.release();
                }
                spare = null;
            }
            if (memtable == null) {
                memtable = new Memtable(capacity);
            }
            next[m.family] = new ActiveMemtable(m.family, memtable, capacity, m.writeBufferSize);
            sealed.add(new Sealed(m.family, m, memtable));
        }
        mutables = next;
        listener.rotated(sealed, nextSequence - 1, newNumber);
    }

    private static boolean contains(int[] values, int value) {
        for (int v : values) {
            if (v == value) {
                return true;
            }
        }
        return false;
    }

    /**
     * Makes {@code memtable} the mutable memtable of a new column family; writes to it are accepted from now.
     * Its capacity must be {@code memtableCapacity(writeBufferSize, 0)}.
     */
    void addFamily(int family, Memtable memtable, long writeBufferSize) {
        logLock.lock();
        try {
            checkUsable();
            ActiveMemtable[] next = java.util.Arrays.copyOf(mutables, Math.max(mutables.length, family + 1));
            next[family] = new ActiveMemtable(family, memtable, memtableCapacity(writeBufferSize, 0), writeBufferSize);
            mutables = next;
        } finally {
            logLock.unlock();
        }
    }

    /** Refuses further writes to {@code family}, then waits until the writes already assigned to it are applied. */
    void removeFamily(int family) {
        ActiveMemtable removed;
        logLock.lock();
        try {
            removed = family < mutables.length ? mutables[family] : null;
            if (removed == null) {
                return;
            }
            ActiveMemtable[] next = mutables.clone();
            next[family] = null;
            mutables = next;
            removed.seal();
        } finally {
            logLock.unlock();
        }
        removed.awaitWritesApplied();
    }

    /** Allocates the next memtable's arena outside every lock, so the next rotation does not zero 64 MiB under one. */
    private void prepareSpare() {
        if (spare == null) {
            Memtable fresh = new Memtable(memtableCapacity(writeBufferSize, 0));
            logLock.lock();
            try {
                if (spare == null && !closed) {
                    spare = fresh;
                    spareCapacity = memtableCapacity(writeBufferSize, 0);
                    fresh = null;
                }
            } finally {
                logLock.unlock();
            }
            if (fresh != null) {
                fresh.release();
            }
        }
    }

    private Log openLog(long number) throws IOException {
        WritableFile file = fs.create(DbFiles.log(dir, number));
        // The new name must be durable before any synced write in it is acknowledged.
        fs.syncDirectory(dir);
        return new Log(number, file);
    }

    /**
     * Seals the mutable memtable now (for {@code Db.flush}) if it holds anything.
     *
     * @return whether a rotation happened
     */
    boolean rotateNow() {
        logLock.lock();
        try {
            checkUsable();
            boolean empty = true;
            for (ActiveMemtable m : mutables) {
                empty &= m == null || m.isEmpty();
            }
            if (empty) {
                return false;
            }
            rotate(new int[0], 0);
        } catch (IOException e) {
            throw fail(e);
        } finally {
            logLock.unlock();
        }
        background.execute(this::prepareSpare);
        return true;
    }

    /** Puts the pipeline into the failed state because background work (a flush) failed. */
    void failFromBackground(IOException cause) {
        fail(cause);
    }

    /** The first failure, or null while healthy. */
    Throwable failure() {
        return failure;
    }

    /** Makes every write logged so far durable on the device. */
    void syncLog() {
        long end;
        logLock.lock();
        try {
            checkUsable();
            end = logBase + log.writer.size();
        } finally {
            logLock.unlock();
        }
        makeDurable(end, true);
    }

    /** For tests: waits until the log worker has run everything queued so far (nothing if it has stopped). */
    void awaitLogWorker() throws InterruptedException {
        try {
            logWorker.submit(() -> { }).get();
        } catch (java.util.concurrent.RejectedExecutionException | java.util.concurrent.ExecutionException stopped) {
            // closed: nothing more will run
        }
    }

    /** For tests: rotations that found no spare log ready and created the next log under logLock. */
    long logsCreatedInline() {
        logLock.lock();
        try {
            return logsCreatedInline;
        } finally {
            logLock.unlock();
        }
    }

    /** Current log number: logs numbered below it hold nothing the current memtable needs. */
    long currentLogNumber() {
        logLock.lock();
        try {
            return log.number;
        } finally {
            logLock.unlock();
        }
    }

    /**
     * Refuses new commits, waits for the ones in flight and for the log worker, then syncs and closes the
     * sealed logs and the current one. Idempotent. If the pipeline had failed, the logs are closed without a
     * final sync; a log worker failure no caller was told about is thrown here.
     */
    void close() throws IOException {
        syncLock.lock();
        try {
            logLock.lock();
            try {
                if (closed) {
                    return;
                }
                closed = true;
                closedVolatile = true;
            } finally {
                logLock.unlock();
            }
        } finally {
            syncLock.unlock();
            wakeSyncWaiters();
        }
        drainLock.lock();
        try {
            while (inFlight.get() > 0) {
                drained.awaitUninterruptibly();
            }
        } finally {
            drainLock.unlock();
        }
        logWorker.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (logWorker.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES)) {
                    break;
                }
                throw new IOException("the log worker did not finish within a minute");
            } catch (InterruptedException e) {
                interrupted = true; // its tasks are short file operations: finish waiting, then re-interrupt
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Memtable unused = spare;
        spare = null;
        if (unused != null) {
            unused.release();
        }
        syncLock.lock();
        try {
            closeLogs();
        } finally {
            syncLock.unlock();
        }
        if (logFailureUnreported) {
            logFailureUnreported = false;
            Throwable cause = failure;
            throw new IOException("the write-ahead log failed in the background", cause);
        }
    }

    /** Syncs (unless failed) and closes every log still open, oldest first. Caller holds syncLock. */
    private void closeLogs() throws IOException {
        java.util.List<Log> open;
        Log unusedSpare;
        logLock.lock();
        try {
            open = new java.util.ArrayList<>(sealedLogs);
            sealedLogs.clear();
            open.add(log);
            unusedSpare = spareLog;
            spareLog = null;
            if (unusedSpare != null) {
                open.add(unusedSpare); // empty; the next open deletes it
            }
        } finally {
            logLock.unlock();
        }
        IOException error = null;
        for (Log l : open) {
            try {
                if (failure == null && error == null && l != unusedSpare) {
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

    private void signalDrained() {
        drainLock.lock();
        try {
            drained.signalAll();
        } finally {
            drainLock.unlock();
        }
    }
}
