package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.wal.StickyFailure;
import io.varve.core.internal.batch.WriteBatchFormat;
import io.varve.core.internal.batch.WriteBatchReader;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.wal.WriteAheadLog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * The write path: turns a batch into a sequenced, logged, applied and finally visible write. It orchestrates
 * three parts: the {@link WriteAheadLog} (log files, group commit, the log worker), the {@link CommitQueue}
 * (ordered publication and the visible sequence) and the {@link MemtableSet} (memtable admission, rotation,
 * spare memtables).
 *
 * <h2>Stages</h2>
 * <ol>
 *   <li><b>Sequence and log</b>, under {@code logLock}: check the memtables have room (rotating to fresh
 *       memtables and a fresh log when not), allocate the batch's sequence numbers, append it to the log's
 *       in-memory buffer, promise it room in its memtables and, in ordered mode, queue it for publication.
 *       Because all of this happens under one lock, log order = sequence order = queue order. The section
 *       copies bytes; its only I/O is a rotation's {@code write} of the old log's buffer (and, rarely, creating
 *       a log or a memtable when no spare is ready).</li>
 *   <li><b>Apply</b>, with no lock: insert the records into the memtables. Writers apply concurrently; the
 *       memtable is a lock-free skiplist, entries above the visible sequence are invisible to readers, and
 *       admission guarantees the insert finds room ({@link ActiveMemtable#fits}). A write that folds a merge
 *       ({@link SuccessiveMerges}) first waits for every earlier batch to be published, and promises itself
 *       any extra room under a try-lock of {@code logLock}.</li>
 *   <li><b>Durable</b>: the batch's bytes reach the OS (a {@code write}) before the call returns, so a process
 *       crash never loses an acknowledged write; with {@code sync}, they are fsynced too, by group commit
 *       (see {@link WriteAheadLog#makeDurable}).</li>
 *   <li><b>Publish</b> (ordered mode): the batch is marked ready, and the visible sequence passes it in queue
 *       order (see {@link CommitQueue}); the writer returns once it has.</li>
 * </ol>
 *
 * <p>In unordered mode (see {@link Options#withUnorderedWrite}) there is no queue: once its own batch is
 * applied and durable, a writer raises the visible sequence to the batch's last sequence (never lowering it)
 * and returns, without waiting for the batches sequenced before it. Readers may then see a later batch while
 * an earlier one is still inserting, or part of a batch whose insert a later writer's raise overtook: that
 * keeps read-your-own-writes and drops batch atomicity for readers and snapshot immutability. Applying before
 * the {@code write} lets one system call carry the batches of every writer that applied meanwhile, as in
 * ordered mode, and a visible sequence never passes a batch whose bytes have not reached the OS.
 *
 * <p>Ingestion ({@link #reserveIngest}) takes its sequence number from the same counter under the same lock
 * and, in ordered mode, publishes it through the same queue as an entry with nothing to apply: the visible
 * sequence stays a single watermark raised only in queue order.
 *
 * <h2>Locks</h2>
 * <ul>
 *   <li>{@code logLock} (here): the sequence counter, {@code closed}, and, on behalf of the parts, the log's
 *       buffer and set of logs and the memtable set. Held for copies and a rotation's {@code write}, never
 *       across a log's fsync; only a rotation that finds no spare log ready creates one (a file creation and a
 *       directory sync) under it.</li>
 *   <li>{@code syncLock} (the log's): held by the fsync leader, the log worker and {@code syncLogsBelow}. It
 *       is taken before {@code logLock} and never while holding it.</li>
 *   <li>{@code publishLock} (the queue's): only ever try-locked. A failure's waker try-locks it from whatever
 *       thread fails, possibly inside {@code logLock} or {@code syncLock}; a try-lock cannot wait, so it adds
 *       no edge to the lock order. Unordered mode raises the visible sequence without it, by compare-and-set.</li>
 *   <li>Leaf locks, under which nothing else is taken: the log's group-commit queue lock (synced writers
 *       queue under it for the next fsync and park outside it), each {@link ActiveMemtable}'s (a flush waits for a sealed memtable's
 *       inserts), {@code drainLock} (close waits for in-flight operations), and the failure's monitor.</li>
 * </ul>
 * So no cycle exists. Writers wait for publication by parking with no lock held.
 *
 * <h2>Failure</h2>
 * The write path shares one {@link StickyFailure}. A failed log write, fsync or file creation (on a writer or
 * the log worker), a failed background flush, anything thrown by a rotation, and any throwable after a batch
 * was sequenced (an out-of-memory error or a bug while applying it) record it; it is final. Its wakers release every thread
 * that waits for something the failure now prevents: queued writers and synced writers see it and throw it.
 * Every later operation is refused. A log worker failure that no caller saw is reported by {@link #close()}.
 *
 * <h2>Shutdown</h2>
 * {@link #close()} sets {@code closed} under {@code logLock}, so every later commit, {@link #syncLog},
 * {@link #rotateNow}, reservation or family addition throws {@code IllegalStateException} with the database's
 * closed message. Operations admitted before that are <em>in flight</em> ({@code inFlight}): a commit from
 * sequencing to return, a {@link #syncLog} from its check to its fsync, an ingestion from reservation to
 * {@link #finishIngest}. Close waits for them without a time bound: each ends on its own, since it waits only
 * for its own I/O and for earlier in-flight operations (publication order), or for the failure that releases
 * everyone. Then close frees the spare memtables and closes the log ({@link WriteAheadLog#close()}: up to a
 * minute for the log worker's current task, then a final sync and close of every log). So an operation racing
 * close either completes against an open log or gets the closed exception, never a spurious I/O error.
 */
public final class CommitPipeline {

    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /** What the pipeline tells the database when the memtable set changes. */
    interface MemtableListener {
        /**
         * Called under the log lock after {@code sealed} stopped taking writes and {@code fresh} took over.
         * Logs numbered below {@code newLogNumber} hold nothing written after {@code sealed}'s contents.
         */
        void rotated(List<MemtableSet.Sealed> sealed, long sealedLastSequence, long newLogNumber);
    }

    /** Inserts a sequenced batch into memtables; {@link CommitPipeline#apply} outside tests. */
    interface Applier {
        void apply(MemorySegment batch, IntFunction<Memtable> memtableFor);
    }

    /** Seams for tests (see {@code WritePathTestAccess}); the database uses {@link #defaults(Path)}. */
    record Hooks(Applier applier, CommitQueue.Parker parker, LongFunction<Memtable> newMemtable) {
        static Hooks defaults(Path dir) {
            return new Hooks(CommitPipeline::apply, CommitQueue.Parker.LOCK_SUPPORT,
                    capacity -> new Memtable(capacity, dir));
        }
    }

    /**
     * A sequence number reserved for an ingestion by {@link #reserveIngest}. Finish it exactly once with
     * {@link #finishIngest}, whether the files were installed or the attempt was abandoned (an abandoned number
     * is simply never used: sequences may have gaps, never repeats).
     */
    static final class IngestReservation {
        final long sequence;
        /** The placeholder in the queue; null in unordered mode. */
        private final CommitQueue.Entry placeholder;

        private IngestReservation(long sequence, CommitQueue.Entry placeholder) {
            this.sequence = sequence;
            this.placeholder = placeholder;
        }
    }

    private final Path dir;
    private final boolean unordered;
    /** Whether batches go to the log; without it the logs stay empty and a flush is what makes data durable. */
    private final boolean logging;
    private final MemtableListener listener;
    private final Applier applier;
    /** Set once at open when reads exist to fold merges with; null in tests that build a bare pipeline. */
    private volatile SuccessiveMerges successiveMerges;
    private final ReentrantLock logLock = new ReentrantLock();
    private final StickyFailure failure = new StickyFailure();
    private final WriteAheadLog wal;
    private final CommitQueue queue;
    private final MemtableSet memtables;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ReentrantLock drainLock = new ReentrantLock();
    private final Condition drained = drainLock.newCondition();

    // Guarded by logLock.
    private long nextSequence;
    /** Written under logLock; read without it by operations leaving, to wake a waiting close. */
    private volatile boolean closed;

    CommitPipeline(FileSystem fs, Path dir, Options options, LongSupplier fileNumbers, long lastSequence,
                   List<MemtableSet.FamilyMemtable> families, long logNumber, MemtableListener listener, Executor background)
            throws IOException {
        this(fs, dir, options, fileNumbers, lastSequence, families, logNumber, listener, background,
                Hooks.defaults(dir));
    }

    CommitPipeline(FileSystem fs, Path dir, Options options, LongSupplier fileNumbers, long lastSequence,
                   List<MemtableSet.FamilyMemtable> families, long logNumber, MemtableListener listener, Executor background,
                   Hooks hooks) throws IOException {
        this.dir = dir;
        this.unordered = options.unorderedWrite();
        this.logging = options.writeAheadLog();
        this.listener = listener;
        this.applier = hooks.applier();
        this.nextSequence = lastSequence + 1;
        this.wal = new WriteAheadLog(fs, dir, n -> DbFiles.log(dir, n), fileNumbers, logNumber, logLock, failure,
                logging, options.logger());
        this.queue = new CommitQueue(lastSequence, failure, hooks.parker());
        this.memtables = new MemtableSet(families, logLock, background, hooks.newMemtable());
        memtables.prepareSparesLater();
    }

    /** The newest sequence readers may see. */
    long visibleSequence() {
        return queue.visibleSequence();
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

    /** Fsyncs led for synced commits and {@link #syncLog}; with {@link #commitsSynced()} it shows group commit. */
    long syncCount() {
        return wal.syncCount();
    }

    long commitsSynced() {
        return wal.syncedCommits();
    }

    /** Log bytes handed to the OS since open: positions continue across rotations, so this is a byte count. */
    long logBytesWritten() {
        return wal.bytesWritten();
    }

    /** Batch bytes logged since open, record framing excluded: the figure RocksDB's WAL_FILE_BYTES counts. */
    long loggedBatchBytes() {
        return wal.loggedBatchBytes();
    }

    /**
     * Runs one batch through the pipeline; returns once it is durable as requested and visible to reads.
     *
     * @param batch the encoded batch (its sequence field is filled in here); not copied, so the caller must
     *              not change it before this returns
     */
    void commit(MemorySegment batch, int count, long payloadBytes, boolean sync, int[] families) {
        if (sync && !logging) {
            throw new IllegalArgumentException("a synced write needs the write-ahead log, which this database "
                    + "runs without (Options.withWriteAheadLog): flush to make writes durable");
        }
        if (count == 0) {
            return;
        }
        CommitQueue.Entry entry = new CommitQueue.Entry(false);
        MemorySegment segment = batch;
        long reserve = MemtableSet.reserve(payloadBytes, count);
        if (reserve > MemtableSet.MAX_RESERVE) {
            throw new IllegalArgumentException("write batch needs " + reserve + " bytes of memtable; the limit is "
                    + MemtableSet.MAX_RESERVE);
        }
        ActiveMemtable[] targets;
        long end;
        boolean rotated = false;
        logLock.lock();
        try {
            checkUsable();
            if (!memtables.fits(families, reserve)) {
                rotate(families, reserve);
                rotated = true;
            }
            entry.firstSequence = nextSequence;
            entry.lastSequence = nextSequence + count - 1;
            nextSequence += count;
            WriteBatchFormat.setSequence(segment, entry.firstSequence);
            end = wal.append(batch);
            targets = memtables.assign(families, reserve);
            inFlight.incrementAndGet();
            if (!unordered) {
                queue.enqueue(entry);
            }
        } catch (IOException e) {
            throw walFailed(e);
        } finally {
            logLock.unlock();
        }
        try {
            if (rotated) {
                memtables.prepareSparesLater();
            }
            if (unordered) {
                applyTo(segment, targets, families, reserve, null);
                wal.makeDurable(end, sync);
                queue.raiseVisible(entry.lastSequence);
                return;
            }
            applyTo(segment, targets, families, reserve, entry);
            wal.makeDurable(end, sync);
            queue.markReady(entry);
            queue.awaitPublished(entry);
        } catch (Throwable t) {
            // The batch is sequenced: if it can never be published, the writers queued behind it would wait
            // for good. Failing the write path releases them (a failure recorded earlier stays the cause).
            failure.record(t, false);
            throw t;
        } finally {
            leave();
        }
    }

    private void checkUsable() {
        if (closed) {
            throw closedException();
        }
        failure.check("database failed earlier and refuses writes; reopen to recover");
    }

    /** The exception every operation on the closed database throws, with the same message. */
    private IllegalStateException closedException() {
        return new IllegalStateException("database " + dir + " is closed");
    }

    /** Ends an in-flight operation, waking close() if it was the last. */
    private void leave() {
        if (inFlight.decrementAndGet() == 0 && closed) {
            drainLock.lock();
            try {
                drained.signalAll();
            } finally {
                drainLock.unlock();
            }
        }
    }

    private UncheckedIOException walFailed(IOException e) {
        failure.record(e, false);
        return new UncheckedIOException("write failed; the database now refuses writes, reopen to recover", e);
    }



    /** Lets writes fold merge operands ({@link SuccessiveMerges}); called once, before the first write. */
    void attachSuccessiveMerges(SuccessiveMerges folding) {
        this.successiveMerges = folding;
    }

    /** @param entry the batch's place in the publication queue; null in unordered mode, where nothing folds */
    private void applyTo(MemorySegment batch, ActiveMemtable[] targets, int[] families, long reserve,
                         CommitQueue.Entry entry) {
        try {
            SuccessiveMerges folding = successiveMerges;
            if (folding != null && entry != null) {
                folding.apply(batch, targets, () -> queue.awaitEarlierThan(entry), logLock);
            } else {
                applier.apply(batch, family -> targets[family].memtable);
            }
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
    static void apply(MemorySegment batch, IntFunction<Memtable> memtableFor) {
        try {
            WriteBatchReader reader = new WriteBatchReader(batch);
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
        } catch (WriteBatchReader.MalformedBatchException e) {
            // The batch was encoded by this process a moment ago: failing to parse it is a bug, not bad input.
            throw new IllegalStateException("batch encoding is broken", e);
        }
    }

    /**
     * Seals the log and every column family's memtable that holds anything (or that is too small for the batch
     * that asked, {@code reserve} bytes for {@code families}), starting fresh ones. All families rotate
     * together, so one flush empties every log before the new one. Caller holds logLock.
     *
     * <p>Anything thrown here fails the write path: the log may have moved on while the memtables did not, and
     * no later write may land in that state.
     */
    private void rotate(int[] families, long reserve) throws IOException {
        try {
            long newLogNumber = wal.rotate();
            List<MemtableSet.Sealed> sealed = memtables.rotate(families, reserve);
            listener.rotated(sealed, nextSequence - 1, newLogNumber);
        } catch (Throwable t) {
            failure.record(t, false);
            throw t;
        }
    }

    /**
     * Seals the mutable memtables now (for {@code Db.flush}) if any holds anything.
     *
     * @return whether a rotation happened
     */
    boolean rotateNow() {
        logLock.lock();
        try {
            checkUsable();
            if (memtables.isEmpty()) {
                return false;
            }
            rotate(new int[0], 0);
        } catch (IOException e) {
            throw walFailed(e);
        } finally {
            logLock.unlock();
        }
        memtables.prepareSparesLater();
        return true;
    }

    /**
     * Makes {@code memtable} the mutable memtable of a new column family; writes to it are accepted from now.
     * Its capacity must be {@code memtableCapacity(writeBufferSize, 0)}.
     */
    void addFamily(int family, Memtable memtable, long writeBufferSize) {
        logLock.lock();
        try {
            checkUsable();
            memtables.addFamily(family, memtable, writeBufferSize);
        } finally {
            logLock.unlock();
        }
        memtables.prepareSparesLater();
    }

    /** Refuses further writes to {@code family}, then waits until the writes already assigned to it are applied. */
    void removeFamily(int family) {
        memtables.removeFamily(family);
    }

    /** Puts the pipeline into the failed state because background work (a flush) failed. */
    void failFromBackground(IOException cause) {
        failure.record(cause, false);
    }

    /** The first failure, or null while healthy. */
    Throwable failure() {
        return failure.cause();
    }

    /** Makes every write logged so far durable on the device. */
    void syncLog() {
        long end;
        logLock.lock();
        try {
            checkUsable();
            end = wal.end();
            inFlight.incrementAndGet();
        } finally {
            logLock.unlock();
        }
        try {
            wal.makeDurable(end, true);
        } finally {
            leave();
        }
    }

    /**
     * Makes every log numbered below {@code logNumber} durable; a flush calls it before its manifest edit moves
     * the log number past them (see {@link WriteAheadLog#syncLogsBelow}).
     */
    void syncLogsBelow(long logNumber) throws IOException {
        if (logging) { // without the log they hold nothing; the final flush at close runs after they closed
            wal.syncLogsBelow(logNumber);
        }
    }

    /** Whether batches go to the write-ahead log ({@code Options.withWriteAheadLog}). */
    boolean logging() {
        return logging;
    }

    /**
     * Takes the next sequence number for an ingestion, under {@code logLock} exactly like a batch's: there is
     * one allocator, so no write can share the number, and the ingestion never writes the visible sequence
     * itself (reading the watermark and writing it back is how tikv#19891 moved it backwards). The lock is held
     * for the allocation only, never across I/O.
     *
     * <p>In ordered mode a placeholder joins the queue, so visibility passes the number in order like a batch's.
     * With {@code holdLaterWrites} the placeholder is ready only at {@link #finishIngest}: writes sequenced after
     * the ingestion are applied and made durable meanwhile but become visible only once the ingestion is
     * installed. Without it the placeholder is ready at once and holds nobody back. Unordered mode has no queue
     * and cannot hold later writes back.
     */
    IngestReservation reserveIngest(boolean holdLaterWrites) {
        if (unordered && holdLaterWrites) {
            throw new IllegalStateException("unordered writes cannot be held back behind an ingestion");
        }
        CommitQueue.Entry placeholder = unordered ? null : new CommitQueue.Entry(true);
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
                queue.enqueue(placeholder);
            }
        } finally {
            logLock.unlock();
        }
        return new IngestReservation(sequence, placeholder);
    }

    /**
     * Blocks until every write sequenced before {@code reservation} is applied to its memtable, so a check of
     * the memtables sees all of them. Needs a held placeholder (ordered mode): writes before it are published
     * only after being applied, and the publisher wakes the placeholder's thread once it is the head of the
     * queue. No lock is held while waiting.
     *
     * @throws UncheckedIOException if the pipeline failed meanwhile
     */
    void awaitEarlierWrites(IngestReservation reservation) {
        if (reservation.placeholder == null || reservation.placeholder.ready) {
            throw new IllegalStateException("only a reservation that holds later writes can wait for earlier ones");
        }
        queue.awaitEarlier(reservation.sequence);
    }

    /**
     * Ends a reservation: makes its sequence visible in order (releasing any later writes held behind it) and
     * waits until it is, so reads issued after this returns see what was installed at it.
     *
     * @throws UncheckedIOException if the pipeline failed (the number may then never become visible)
     */
    void finishIngest(IngestReservation reservation) {
        try {
            if (reservation.placeholder == null) {
                queue.raiseVisible(reservation.sequence);
            } else {
                queue.markReady(reservation.placeholder);
                queue.awaitPublished(reservation.placeholder);
            }
        } finally {
            leave();
        }
    }

    /** Whether the pipeline runs in unordered mode (no publication queue). */
    boolean unordered() {
        return unordered;
    }

    /** For tests: waits until the log worker has run everything queued so far (nothing if it has stopped). */
    void awaitLogWorker() throws InterruptedException {
        wal.awaitWorker();
    }

    /** For tests: rotations that found no spare log ready and created the next log under logLock. */
    long logsCreatedInline() {
        return wal.createdInline();
    }

    /** For tests: rotations that found a family's spare memtable missing and allocated one under logLock. */
    long memtablesCreatedInline() {
        return memtables.createdInline();
    }

    /** Current log number: logs numbered below it hold nothing the current memtable needs. */
    long currentLogNumber() {
        return wal.currentLogNumber();
    }

    /**
     * Without the log, the memtables hold the only copy of what was written since the last flush: once no commit
     * is in flight, seal them for the flush that close runs last (the flusher runs it although closing). Nothing
     * is sealed after a failure: the database then refuses its data as it refuses writes.
     */
    private void sealForFinalFlush() {
        logLock.lock();
        try {
            if (failure.cause() != null || memtables.isEmpty()) {
                return;
            }
            List<MemtableSet.Sealed> sealed = memtables.rotate(new int[0], 0);
            listener.rotated(sealed, nextSequence - 1, wal.currentLogNumber());
        } catch (RuntimeException e) {
            failure.record(e, false);
        } finally {
            logLock.unlock();
        }
    }

    /**
     * Refuses new operations, waits for the ones in flight, frees the spare memtables, then closes the log (see
     * the type comment). Idempotent. If the pipeline had failed, the logs are closed without a final sync; a log
     * worker failure no caller was told about is thrown here.
     */
    void close() throws IOException {
        logLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            wal.beginClose();
        } finally {
            logLock.unlock();
        }
        drainLock.lock();
        try {
            while (inFlight.get() > 0) {
                drained.awaitUninterruptibly();
            }
        } finally {
            drainLock.unlock();
        }
        if (!logging) {
            sealForFinalFlush();
        }
        memtables.close();
        wal.close();
        if (failure.takeUnreported()) {
            throw new IOException("the write-ahead log failed in the background", failure.cause());
        }
    }
}
