package io.varve.raftlog.write;

import io.varve.base.concurrent.GroupCommit;
import io.varve.raftlog.file.QueueWriter;
import io.varve.raftlog.format.BatchMerger;
import io.varve.raftlog.format.EncodedBatch;
import io.varve.raftlog.index.BatchValidator;
import io.varve.raftlog.index.MemIndex;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The leader's work for a group of writes: validate each batch against Raft's append rule, append the
 * accepted ones to the append queue (consecutive small ones merged into one batch by {@link BatchMerger}:
 * one header and one write for many writers), fdatasync once if any member asked for it, then apply every
 * written batch to the index and settle the members.
 *
 * <p>The leader applies the index on its followers' behalf, after the sync: readers therefore never see a
 * batch whose write failed, and an exclusive request (purge) sees an index that matches exactly the batches
 * appended so far. The price is that index updates are serialized in the leader; they are memory-only and
 * short.
 *
 * <p>Fail-stop: the first I/O error (or unexpected exception) while writing or syncing fails every member of
 * the group that was not yet acknowledged and is remembered; every later write is refused with it as the
 * cause. A failed fsync is never retried, since the kernel may already have dropped the dirty pages.
 */
public final class BatchCommitter implements GroupCommit.Leader {

    /** A batch to append; {@code batch} is null for a bare sync request. */
    public static final class WriteRequest extends GroupCommit.Request {
        final EncodedBatch batch;
        final boolean sync;

        public WriteRequest(EncodedBatch batch, boolean sync) {
            super(false, batch == null ? 0 : batch.length(), sync);
            this.batch = batch;
            this.sync = sync;
        }
    }

    /** Work that must run with no write in flight. */
    public interface ExclusiveWork {
        long run() throws IOException;
    }

    /** Runs {@link ExclusiveWork} in the position of a leader, alone. */
    public static final class ExclusiveRequest extends GroupCommit.Request {
        final ExclusiveWork work;
        final boolean fatalOnError;
        final boolean evenAfterFailure;

        /**
         * @param fatalOnError whether an error in the work fails the engine (true when it writes)
         * @param evenAfterFailure run even if the engine has failed or is closed (close itself)
         */
        public ExclusiveRequest(ExclusiveWork work, boolean fatalOnError, boolean evenAfterFailure) {
            super(true, 0, false);
            this.work = work;
            this.fatalOnError = fatalOnError;
            this.evenAfterFailure = evenAfterFailure;
        }
    }

    private final QueueWriter writer;
    private final MemIndex index;
    private volatile Throwable failure;
    private volatile boolean closed;

    public BatchCommitter(QueueWriter writer, MemIndex index) {
        this.writer = writer;
        this.index = index;
    }

    /** The error that stopped the engine, or null. */
    public Throwable failure() {
        return failure;
    }

    /** Records a failure from outside the write path (purge), stopping all later writes. */
    public void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }

    /** After this, every request is refused; set from an exclusive request by close. */
    public void markClosed() {
        closed = true;
    }

    public IOException refusal() {
        return new IOException("the raft log engine stopped after an earlier error and refuses writes: "
                + failure, failure);
    }

    /** A batch as it went to the file: one caller's, or several merged. */
    private record Appended(EncodedBatch batch, long fileId, long position) {
    }

    @Override
    public void lead(List<GroupCommit.Request> group) {
        if (group.size() == 1 && group.getFirst() instanceof ExclusiveRequest ex) {
            runExclusive(ex);
            return;
        }
        List<WriteRequest> written = new ArrayList<>(group.size());
        List<Appended> appended = new ArrayList<>();
        try {
            appendAll(group, written, appended);
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
        if (failure == null) {
            for (Appended a : appended) {
                index.apply(a.batch.items(), a.fileId, a.position, false);
            }
            for (WriteRequest w : written) {
                w.succeed(w.batch == null ? 0 : w.batch.length());
            }
        }
        if (failure != null) {
            // Whatever is not settled was written (or queued) in a round that failed: never acknowledged.
            for (GroupCommit.Request r : group) {
                r.fail(failure);
            }
        }
    }

    /**
     * Validates every member, then appends the accepted batches in order, consecutive small ones merged into
     * one batch (one header, one write), and syncs once if any member asked for it.
     */
    private void appendAll(List<GroupCommit.Request> group, List<WriteRequest> written, List<Appended> appended)
            throws IOException {
        BatchValidator validator = new BatchValidator(index);
        boolean needSync = false;
        for (GroupCommit.Request r : group) {
            WriteRequest w = (WriteRequest) r;
            if (!admit(w)) {
                continue;
            }
            if (w.batch != null) {
                try {
                    validator.accept(w.batch.items());
                } catch (IllegalArgumentException e) {
                    w.fail(e);
                    continue;
                }
            }
            written.add(w);
            needSync |= w.sync;
        }
        BatchMerger.Run run = new BatchMerger.Run();
        for (WriteRequest w : written) {
            if (w.batch == null || run.tryAdd(w.batch)) {
                continue;
            }
            flush(run, appended);
            if (!run.tryAdd(w.batch)) {
                append(w.batch, appended);
            }
        }
        flush(run, appended);
        if (needSync) {
            writer.sync();
        }
    }

    private void flush(BatchMerger.Run run, List<Appended> appended) throws IOException {
        if (!run.isEmpty()) {
            append(run.take(), appended);
        }
    }

    private void append(EncodedBatch batch, List<Appended> appended) throws IOException {
        long position = writer.append(batch);
        appended.add(new Appended(batch, writer.activeFileId(), position));
    }

    private boolean admit(GroupCommit.Request r) {
        if (closed) {
            r.fail(new IllegalStateException("the raft log engine is closed"));
            return false;
        }
        if (failure != null) {
            r.fail(refusal());
            return false;
        }
        return true;
    }

    private void runExclusive(ExclusiveRequest ex) {
        if (!ex.evenAfterFailure && !admit(ex)) {
            return;
        }
        try {
            ex.succeed(ex.work.run());
        } catch (IOException | RuntimeException e) {
            if (ex.fatalOnError && failure == null) {
                failure = e;
            }
            ex.fail(e);
        }
    }

}
