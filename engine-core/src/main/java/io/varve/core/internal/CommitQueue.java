package io.varve.core.internal;

import io.varve.core.internal.wal.StickyFailure;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Ordered publication: the batches sequenced but not yet visible, in sequence order, and the visible sequence,
 * which rises strictly in that order. A batch that is applied and durable is marked ready; whoever holds
 * {@code publishLock} pops ready entries off the head, raises the visible sequence to each one's last sequence
 * and unparks its writer. So readers never see part of a batch, snapshots never change, and a writer that
 * returns can read its own write. An ingestion publishes its sequence through the same queue as an entry with
 * nothing to apply.
 *
 * <h2>Locks and invariants</h2>
 * <ul>
 *   <li>Entries are added under the pipeline's log lock, the lock that allocates sequence numbers, so queue
 *       order is sequence order.</li>
 *   <li>Only the holder of {@code publishLock} touches the queue's consumer side: JCTools' MPSC queues allow a
 *       single consumer, and a {@code peek} racing a {@code poll} can spin forever on a slot the poll already
 *       cleared. Publication only ever try-locks it: a thread that finds it taken leaves a request
 *       ({@code publishRequested}) that the holder sees after unlocking; nothing waits for it.</li>
 *   <li>Who writes the visible sequence depends on the mode, and a database runs in one mode from open to
 *       close: in ordered mode only the holder of {@code publishLock}; in unordered mode (no queue, hence no
 *       publisher) only {@link #raiseVisible}, by compare-and-set, which never lowers it.</li>
 *   <li>When the write path fails, the failure's waker requests a publication; the publisher then drops every
 *       entry without publishing it and unparks its writer, who sees the failure. The failed batches stay above
 *       the visible sequence, so readers never see a write whose durability is unknown.</li>
 *   <li>A waiting writer parks until its entry is published or the write path fails. An interrupt does not end
 *       the wait (the batch is logged: it will become visible, and the caller must not believe otherwise);
 *       the flag is cleared while waiting, so parking really blocks, and set again on return.</li>
 * </ul>
 */
public final class CommitQueue {

    /** How a waiting writer blocks; tests substitute one that watches how it is called. */
    interface Parker {
        Parker LOCK_SUPPORT = LockSupport::park;

        void park(Object blocker);
    }

    /** A batch, or an ingestion's placeholder, from sequencing until it is published. */
    static final class Entry {
        final Thread writer = Thread.currentThread();
        /** An ingestion's placeholder: its thread waits to reach the head of the queue (see awaitEarlier). */
        final boolean ingestion;
        /** Set under the log lock before the entry is queued. */
        long firstSequence;
        long lastSequence;
        volatile boolean ready;
        volatile boolean published;
        /** Its writer waits in {@link #awaitEarlierThan} for the batches before it: wake it at the head. */
        volatile boolean awaitingEarlier;

        Entry(boolean ingestion) {
            this.ingestion = ingestion;
        }
    }

    // The atomic-field-updater variant: the default JCTools queues use the JDK-internal Unsafe class.
    private final MpscUnboundedAtomicArrayQueue<Entry> pending = new MpscUnboundedAtomicArrayQueue<>(1024);
    private final ReentrantLock publishLock = new ReentrantLock();
    private final StickyFailure failure;
    private final Parker parker;
    private volatile boolean publishRequested;
    private volatile long visibleSequence;

    private static final VarHandle VISIBLE_SEQUENCE;

    static {
        try {
            VISIBLE_SEQUENCE = MethodHandles.lookup().findVarHandle(CommitQueue.class, "visibleSequence", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    CommitQueue(long visibleSequence, StickyFailure failure, Parker parker) {
        this.visibleSequence = visibleSequence;
        this.failure = failure;
        this.parker = parker;
        failure.onFailure(this::publishReady);
    }

    /** The newest sequence readers may see. */
    long visibleSequence() {
        return visibleSequence;
    }

    /** Queues an entry whose sequences were just allocated. Caller holds the log lock. */
    void enqueue(Entry entry) {
        pending.offer(entry);
    }

    /** Marks {@code entry} applied and durable, and publishes whatever became publishable. */
    void markReady(Entry entry) {
        entry.ready = true;
        publishReady();
    }

    /** Publishes the ready entries at the head of the queue, or drops them all once the write path failed. */
    void publishReady() {
        publishRequested = true;
        while (publishRequested) {
            if (!publishLock.tryLock()) {
                // The holder re-reads publishRequested after unlocking, so this request cannot be missed.
                return;
            }
            try {
                // Cleared before draining: a ready flag set before a later request is seen by this drain.
                publishRequested = false;
                if (failure.failed()) {
                    Entry dropped;
                    while ((dropped = pending.relaxedPoll()) != null) {
                        LockSupport.unpark(dropped.writer);
                    }
                    continue;
                }
                Entry head;
                while ((head = pending.relaxedPeek()) != null && head.ready) {
                    pending.relaxedPoll();
                    visibleSequence = head.lastSequence;
                    head.published = true;
                    LockSupport.unpark(head.writer);
                }
                if (head != null && (head.ingestion || head.awaitingEarlier)) {
                    // Every write before the head is published, hence applied: see awaitEarlier.
                    LockSupport.unpark(head.writer);
                }
            } finally {
                publishLock.unlock();
            }
        }
    }

    /**
     * Blocks until {@code entry} is published.
     *
     * @throws java.io.UncheckedIOException or {@link IllegalStateException} if the write path failed first
     */
    void awaitPublished(Entry entry) {
        boolean interrupted = false;
        try {
            while (!entry.published) {
                failure.check("database failed earlier; reopen to recover");
                if (Thread.interrupted()) {
                    interrupted = true;
                    continue; // re-check with the flag cleared, then park for real
                }
                parker.park(this);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Blocks until every sequence below {@code sequence} is visible. Called by the thread that queued the
     * not-yet-ready ingestion placeholder at {@code sequence}: the publisher wakes it once it is the head.
     */
    void awaitEarlier(long sequence) {
        boolean interrupted = false;
        try {
            while (visibleSequence < sequence - 1) {
                failure.check("database failed earlier; reopen to recover");
                if (Thread.interrupted()) {
                    interrupted = true;
                    continue;
                }
                parker.park(this);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Blocks until every batch sequenced before {@code entry} (not yet ready) is published, hence applied.
     * The flag is set before the visible sequence is read, and the publisher raises the visible sequence
     * before it reads the flag, so one of the two sees the other: the wake-up cannot be missed.
     */
    void awaitEarlierThan(Entry entry) {
        entry.awaitingEarlier = true;
        awaitEarlier(entry.firstSequence);
    }

    /**
     * Unordered mode: raises the visible sequence to {@code sequence} unless it is past it already. Lock-free:
     * a raise that loses a race retries against the value that won, so the sequence only ever grows, and a
     * writer never waits here for another (with more writers than cores, a waiter would wait for a holder the
     * scheduler preempted).
     */
    void raiseVisible(long sequence) {
        long current = visibleSequence;
        while (sequence > current) {
            long witness = (long) VISIBLE_SEQUENCE.compareAndExchange(this, current, sequence);
            if (witness == current) {
                return;
            }
            current = witness;
        }
    }
}
