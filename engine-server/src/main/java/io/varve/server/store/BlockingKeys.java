package io.varve.server.store;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN, ...), per key in arrival order, and the wake-up that
 * serves them when a write makes one of those keys non-empty. Knows nothing of lists or sorted sets: a
 * {@link Waiter} is a "try to serve me now from this key" callback that does the pop itself.
 *
 * <h2>No lost wake-ups</h2>
 * A blocking command checks its keys and {@link #register}s while holding the keys' stripe locks; a writer
 * {@link #signal}s after its commit, with its locks released. So either the blocking command's check ran after
 * the commit (and found the data), or the registration happened before the writer could take the lock, and
 * so before the signal.
 *
 * <h2>Order</h2>
 * A signal offers the key to its waiters oldest first, each in turn, until one answers
 * {@link Outcome#NOT_READY} (the key ran empty, or holds another type). Writes a waiter's serve makes (BLMOVE's
 * destination) signal again; those signals are queued on the calling thread and handled after the current
 * one, not recursively, so a chain of BLMOVEs cannot grow the stack. A writer signals before it replies, so
 * once a push's reply is out, the clients it could serve have been served, as in Redis. Unlike Redis, another
 * client's plain pop may take the element between the push's commit and the signal.
 *
 * <p>Thread-safe: the registry is guarded by this object's monitor, held only for map updates, never while a
 * waiter serves. {@link #signal} costs one volatile read while nobody is blocked.
 */
public final class BlockingKeys {

    /** What a waiter made of an offered key. */
    public enum Outcome {
        /** It took what it needed and replied; it is no longer waiting. */
        SERVED,
        /** The key cannot serve it (empty, or another type): later waiters need not be asked. */
        NOT_READY,
        /** It stopped waiting meanwhile (timed out, disconnected): ask the next one. */
        GONE
    }

    /** One blocked command. {@link #serve} is called with no lock held and may take stripe locks and commit. */
    public interface Waiter {
        Outcome serve(byte[] readyKey);
    }

    private static final ThreadLocal<ArrayDeque<ByteBuffer>> PENDING = new ThreadLocal<>();

    private final Map<ByteBuffer, ArrayDeque<Waiter>> queues = new HashMap<>();
    private final Map<Waiter, List<byte[]>> keysOf = new IdentityHashMap<>();
    private volatile int waiters;

    /**
     * Adds {@code waiter} at the end of each key's queue (once per key, however often the command named it).
     * Caller holds the keys' stripe locks.
     */
    public synchronized void register(Waiter waiter, List<byte[]> keys) {
        List<byte[]> distinct = new ArrayList<>();
        for (byte[] key : keys) {
            ArrayDeque<Waiter> queue = queues.computeIfAbsent(ByteBuffer.wrap(key), k -> new ArrayDeque<>());
            if (queue.peekLast() != waiter) {
                queue.addLast(waiter);
                distinct.add(key);
            }
        }
        keysOf.put(waiter, distinct);
        waiters = keysOf.size();
        notifyAll();
    }

    /** Takes {@code waiter} out of every queue; a no-op when it is not registered. */
    public synchronized void remove(Waiter waiter) {
        List<byte[]> keys = keysOf.remove(waiter);
        if (keys == null) {
            return;
        }
        for (byte[] key : keys) {
            ByteBuffer k = ByteBuffer.wrap(key);
            ArrayDeque<Waiter> queue = queues.get(k);
            if (queue != null) {
                queue.remove(waiter);
                if (queue.isEmpty()) {
                    queues.remove(k);
                }
            }
        }
        waiters = keysOf.size();
        notifyAll();
    }

    /**
     * Waits until exactly {@code count} commands wait on {@code key}, for at most {@code timeoutMillis}; returns
     * whether that happened. Lets tests and tools act once clients are known to be blocked.
     */
    public synchronized boolean awaitWaiting(byte[] key, int count, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (waitingOn(key) != count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /** Blocked commands registered now (INFO's blocked_clients). */
    public int blockedCount() {
        return waiters;
    }

    /** How many commands wait on {@code key}. */
    public synchronized int waitingOn(byte[] key) {
        ArrayDeque<Waiter> queue = queues.get(ByteBuffer.wrap(key));
        return queue == null ? 0 : queue.size();
    }

    /**
     * Runs {@code writes} with the signals they raise on this thread held back, then serves them: for writes
     * that are not in the database yet when they signal ({@link Keyspace#commitTogether}).
     */
    public void signalAfter(Runnable writes) {
        if (PENDING.get() != null) {
            writes.run(); // signals are already held back on this thread
            return;
        }
        ArrayDeque<ByteBuffer> pending = new ArrayDeque<>();
        PENDING.set(pending);
        try {
            writes.run();
        } finally {
            try {
                ByteBuffer next;
                while ((next = pending.pollFirst()) != null) {
                    serveWaitersOf(next);
                }
            } finally {
                PENDING.remove();
            }
        }
    }

    /**
     * {@code key} may have become non-empty: serves its waiters, oldest first. Call after the write committed
     * and with no stripe lock held (a waiter takes its own locks).
     */
    public void signal(byte[] key) {
        if (waiters == 0) {
            return;
        }
        ArrayDeque<ByteBuffer> pending = PENDING.get();
        if (pending != null) {
            pending.addLast(ByteBuffer.wrap(key)); // a waiter's own write: handled after the current key
            return;
        }
        pending = new ArrayDeque<>();
        pending.add(ByteBuffer.wrap(key));
        PENDING.set(pending);
        try {
            ByteBuffer next;
            while ((next = pending.pollFirst()) != null) {
                serveWaitersOf(next);
            }
        } finally {
            PENDING.remove();
        }
    }

    private void serveWaitersOf(ByteBuffer key) {
        List<Waiter> inOrder;
        synchronized (this) {
            ArrayDeque<Waiter> queue = queues.get(key);
            if (queue == null) {
                return;
            }
            inOrder = new ArrayList<>(queue);
        }
        byte[] rawKey = key.array();
        for (Waiter w : inOrder) {
            Outcome outcome = w.serve(rawKey);
            if (outcome == Outcome.NOT_READY) {
                return;
            }
            remove(w);
        }
    }
}
