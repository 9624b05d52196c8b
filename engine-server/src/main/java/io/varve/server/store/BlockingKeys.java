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
 * <h2>Which database</h2>
 * A waiter waits for a key of one database: its place is a (physical database, key) pair, the same pair the
 * storage names the key's records by ({@link KeyEncoding}). A write therefore signals exactly what it wrote,
 * in the database bound while it ran, with no translation, and a waiter is served with that database bound.
 * A client, though, selected a logical database, and SWAPDB changes which physical database that is: Redis
 * leaves blocked clients in the database number they selected and serves those whose database now holds
 * their key. {@link #swapDatabases} does the same here, moving the waiters of the two physical databases
 * onto each other's and offering them their keys; it runs in the command gate's exclusive side together
 * with the swap of the map, so no signal or serve sees one without the other.
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

    /**
     * One blocked command. {@link #serve} is called with no lock held and with {@link KeyEncoding#DATABASE}
     * bound to the ready key's database; it may take stripe locks and commit.
     */
    public interface Waiter {
        Outcome serve(byte[] readyKey);
    }

    /** A key of one physical database: where a waiter waits. */
    private record Slot(int database, ByteBuffer key) {
        Slot(int database, byte[] key) {
            this(database, ByteBuffer.wrap(key));
        }
    }

    private static final ThreadLocal<ArrayDeque<Slot>> PENDING = new ThreadLocal<>();

    private final Map<Slot, ArrayDeque<Waiter>> queues = new HashMap<>();
    private final Map<Waiter, List<Slot>> slotsOf = new IdentityHashMap<>();
    private volatile int waiters;

    /**
     * Adds {@code waiter} at the end of the queue of each of {@code keys} in the current database
     * ({@link KeyEncoding#currentDatabase}), once per key however often the command named it. Caller holds
     * the keys' stripe locks.
     */
    public synchronized void register(Waiter waiter, List<byte[]> keys) {
        int database = KeyEncoding.currentDatabase();
        List<Slot> distinct = new ArrayList<>();
        for (byte[] key : keys) {
            Slot slot = new Slot(database, key);
            ArrayDeque<Waiter> queue = queues.computeIfAbsent(slot, k -> new ArrayDeque<>());
            if (queue.peekLast() != waiter) {
                queue.addLast(waiter);
                distinct.add(slot);
            }
        }
        slotsOf.put(waiter, distinct);
        waiters = slotsOf.size();
        notifyAll();
    }

    /** Takes {@code waiter} out of every queue; a no-op when it is not registered. */
    public synchronized void remove(Waiter waiter) {
        List<Slot> slots = slotsOf.remove(waiter);
        if (slots == null) {
            return;
        }
        for (Slot slot : slots) {
            ArrayDeque<Waiter> queue = queues.get(slot);
            if (queue != null) {
                queue.remove(waiter);
                if (queue.isEmpty()) {
                    queues.remove(slot);
                }
            }
        }
        waiters = slotsOf.size();
        notifyAll();
    }

    /**
     * SWAPDB of the logical databases stored in physical databases {@code a} and {@code b}: their waiters
     * exchange databases, so each stays with the logical database it selected, and every key they wait for
     * is offered to them (the swapped-in database may hold it). Caller holds the command gate's exclusive
     * side, so no serve is in progress and the map of databases swaps in the same step.
     */
    public void swapDatabases(int a, int b) {
        List<Slot> offered = new ArrayList<>();
        synchronized (this) {
            if (a == b || waiters == 0) {
                return;
            }
            Map<Slot, ArrayDeque<Waiter>> moved = new HashMap<>();
            queues.entrySet().removeIf(e -> {
                int database = e.getKey().database();
                if (database != a && database != b) {
                    return false;
                }
                Slot to = new Slot(database == a ? b : a, e.getKey().key());
                moved.put(to, e.getValue());
                offered.add(to);
                return true;
            });
            queues.putAll(moved);
            for (List<Slot> slots : slotsOf.values()) {
                slots.replaceAll(s -> s.database() == a ? new Slot(b, s.key())
                        : s.database() == b ? new Slot(a, s.key()) : s);
            }
        }
        for (Slot slot : offered) {
            signal(slot);
        }
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

    /** How many commands wait on {@code key}, in any database. */
    public synchronized int waitingOn(byte[] key) {
        ByteBuffer k = ByteBuffer.wrap(key);
        int n = 0;
        for (Map.Entry<Slot, ArrayDeque<Waiter>> e : queues.entrySet()) {
            n += e.getKey().key().equals(k) ? e.getValue().size() : 0;
        }
        return n;
    }

    /** How many commands wait on {@code key} of physical database {@code database}. */
    public synchronized int waitingOn(int database, byte[] key) {
        ArrayDeque<Waiter> queue = queues.get(new Slot(database, key));
        return queue == null ? 0 : queue.size();
    }

    /**
     * {@code key} of the current database may have become non-empty: serves its waiters, oldest first. Call
     * after the write committed and with no stripe lock held (a waiter takes its own locks).
     */
    public void signal(byte[] key) {
        signal(KeyEncoding.currentDatabase(), key);
    }

    /** {@link #signal(byte[])} for a key written in physical database {@code database} (MOVE, COPY ... DB). */
    public void signal(int database, byte[] key) {
        if (waiters == 0) {
            return;
        }
        signal(new Slot(database, key));
    }

    private void signal(Slot slot) {
        ArrayDeque<Slot> pending = PENDING.get();
        if (pending != null) {
            pending.addLast(slot); // a waiter's own write: handled after the current key
            return;
        }
        pending = new ArrayDeque<>();
        pending.add(slot);
        PENDING.set(pending);
        try {
            Slot next;
            while ((next = pending.pollFirst()) != null) {
                serveWaitersOf(next);
            }
        } finally {
            PENDING.remove();
        }
    }

    private void serveWaitersOf(Slot slot) {
        List<Waiter> inOrder;
        synchronized (this) {
            ArrayDeque<Waiter> queue = queues.get(slot);
            if (queue == null) {
                return;
            }
            inOrder = new ArrayList<>(queue);
        }
        byte[] rawKey = slot.key().array();
        for (Waiter w : inOrder) {
            Outcome outcome = ScopedValue.where(KeyEncoding.DATABASE, slot.database()).call(() -> w.serve(rawKey));
            if (outcome == Outcome.NOT_READY) {
                return;
            }
            remove(w);
        }
    }
}
