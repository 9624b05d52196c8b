package io.varve.core.ingest;

import io.varve.core.internal.keys.Keys;

import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Exclusive latches on closed key ranges {@code [first, last]} (keys compare as unsigned bytes). Holders of
 * overlapping ranges exclude each other; disjoint ranges are held at once. The engine does not take latches
 * for ordinary writes: they are a protocol between the parties that need it — an ingestion with
 * {@link IngestOptions#allowWrite()} holds one over its files' keys, and a writer that must never race it
 * (a compaction filter's clean-up writes, an application's range rewrite) takes one over the keys it writes.
 *
 * <pre>{@code
 * try (RangeLatch.Guard held = db.rangeLatch().acquire(first, last)) {
 *     // no other holder of an overlapping range runs here
 * }
 * }</pre>
 *
 * <h2>Design and invariants</h2>
 * One lock guards a queue of requests in arrival order, granted and waiting alike. A request is granted
 * once no request ahead of it in the queue overlaps it; releasing removes it and wakes only the later
 * requests that overlapped it, each on its own condition (no thundering herd). Consequences:
 * <ul>
 *   <li><b>First come, first served among overlapping requests</b>: a latecomer never overtakes an
 *       overlapping waiter, so a wide range is not starved by a stream of narrow ones.</li>
 *   <li><b>No deadlock for a thread that holds at most one latch</b> while it waits: a request only ever
 *       waits for requests that arrived before it, so the waits-for relation follows arrival order and
 *       cannot form a cycle. A thread that holds a latch and asks for another can deadlock like with any two
 *       locks; take one range covering both instead.</li>
 *   <li>Costs are O(requests queued) per acquire and release, under one lock: meant for a handful of
 *       concurrent holders (ingestions, clean-up batches), not for a latch per foreground write.</li>
 * </ul>
 * Latches are not reentrant and not owned by a thread: a guard may be closed by any thread, once.
 */
public final class RangeLatch {

    private final ReentrantLock lock = new ReentrantLock();
    /** Sentinel of the circular request queue, in arrival order; guarded by lock. */
    private final Request queue = new Request(null, null);
    private int queued;

    public RangeLatch() {
        queue.next = queue;
        queue.previous = queue;
    }

    /** Waits until {@code [first, last]} overlaps no earlier request, then holds it. Not interruptible. */
    public Guard acquire(byte[] first, byte[] last) {
        Request request = new Request(copy(first, "first"), copy(last, "last"));
        checkOrder(request);
        lock.lock();
        try {
            enqueue(request);
            if (blocked(request)) {
                request.wakeUp = lock.newCondition();
                do {
                    request.wakeUp.awaitUninterruptibly();
                } while (blocked(request));
            }
            request.granted = true;
        } finally {
            lock.unlock();
        }
        return new Guard(request);
    }

    /** {@link #acquire(byte[], byte[])} of the single key {@code key}. */
    public Guard acquire(byte[] key) {
        return acquire(key, key);
    }

    /** Holds {@code [first, last]} if that needs no waiting, else returns null and holds nothing. */
    public Guard tryAcquire(byte[] first, byte[] last) {
        Request request = new Request(copy(first, "first"), copy(last, "last"));
        checkOrder(request);
        lock.lock();
        try {
            enqueue(request);
            if (blocked(request)) {
                remove(request);
                return null;
            }
            request.granted = true;
        } finally {
            lock.unlock();
        }
        return new Guard(request);
    }

    /** Requests granted or waiting right now; for tests and diagnostics. */
    public int queuedCount() {
        lock.lock();
        try {
            return queued;
        } finally {
            lock.unlock();
        }
    }

    private void release(Request request) {
        lock.lock();
        try {
            Request after = request.next;
            remove(request);
            for (Request r = after; r != queue; r = r.next) {
                if (!r.granted && r.wakeUp != null && r.overlaps(request)) {
                    r.wakeUp.signal();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether an earlier request overlaps {@code request}. Caller holds lock. */
    private boolean blocked(Request request) {
        for (Request r = queue.next; r != request; r = r.next) {
            if (r.overlaps(request)) {
                return true;
            }
        }
        return false;
    }

    private void enqueue(Request request) {
        request.previous = queue.previous;
        request.next = queue;
        queue.previous.next = request;
        queue.previous = request;
        queued++;
    }

    private void remove(Request request) {
        request.previous.next = request.next;
        request.next.previous = request.previous;
        queued--;
    }

    private static byte[] copy(byte[] key, String name) {
        return Objects.requireNonNull(key, name).clone();
    }

    private static void checkOrder(Request request) {
        if (Keys.compare(request.first, request.last) > 0) {
            throw new IllegalArgumentException("a range's first key must not sort after its last key");
        }
    }

    private static final class Request {
        final byte[] first;
        final byte[] last;
        Request previous;
        Request next;
        boolean granted;
        /** Created only if the request has to wait. */
        Condition wakeUp;

        Request(byte[] first, byte[] last) {
            this.first = first;
            this.last = last;
        }

        boolean overlaps(Request other) {
            return Keys.compare(first, other.last) <= 0 && Keys.compare(other.first, last) <= 0;
        }
    }

    /** A held range; closing releases it. */
    public final class Guard implements AutoCloseable {
        private final Request request;
        private final AtomicBoolean released = new AtomicBoolean();

        private Guard(Request request) {
            this.request = request;
        }

        /** The first key of the held range (a copy). */
        public byte[] first() {
            return request.first.clone();
        }

        /** The last key of the held range (a copy). */
        public byte[] last() {
            return request.last.clone();
        }

        /** Releases the range, waking overlapping waiters. Only the first call has an effect. */
        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                release(request);
            }
        }
    }
}
