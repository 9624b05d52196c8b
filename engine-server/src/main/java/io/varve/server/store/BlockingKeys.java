package io.varve.server.store;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN, ...), per key in arrival order, and the wake-up that
 * serves them when a write makes one of those keys non-empty. Knows nothing of lists or sorted sets: a
 * {@link Waiter} is a "try to serve me now from this key" callback that does the pop itself.
 *
 * <h2>Which database</h2>
 * A waiter waits for a key of one database: its place is a (physical database, key) pair, the same pair the
 * storage names the key's records by ({@link KeyEncoding}). A write therefore signals exactly what it wrote,
 * in the database its keyspace is bound to ({@link Keyspace#signalWaiters}), with no translation, and a
 * waiter is told which database the key it is offered is in.
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
 * so before the signal, which then offers the key to the waiter.
 * <p>No signal is served while its thread holds a stripe lock: serving a waiter takes the locks of its keys
 * (BLMOVE's destination too), and a writer holding one key's lock while it waits for another's, with a
 * second writer doing the reverse, would deadlock. A blocking command that pops at once marks its keys
 * while it still holds their locks, so the dispatcher runs it inside {@link #signalAfter}.
 *
 * <h2>One serve at a time, and no offer lost</h2>
 * Several writers may offer keys to one waiter at once. A {@link Registration}'s state goes WAITING → SERVING
 * (one writer's thread runs the waiter's attempt) → DONE, or back to WAITING when the attempt found nothing.
 * Every offer is first queued on the registration, then the offering thread tries to become the server
 * (CAS WAITING → SERVING). The server drains the queue, attempting each offered key, sets WAITING, and looks
 * at the queue again; a writer that finds the waiter SERVING leaves its offer queued and moves on. Both
 * write before they read (volatile), so an offer made while a serve is in progress is always attempted,
 * by that server or by the writer itself: a serve that finds nothing never hides a later push. A waiter
 * leaves the registry only when it is really served, or when its wait {@link Registration#end ends}
 * (timeout, disconnect, unblock); an end that finds it SERVING is left for the server to apply once the
 * attempt has found nothing. So it ends exactly once, and replies exactly once.
 *
 * <h2>Order</h2>
 * A signal offers the key to its waiters oldest first, each in turn, until one finds the key cannot serve
 * it (ran empty, or holds another type). A waiter being served by another writer is skipped (that writer
 * will attempt this key for it too), so with concurrent writers a younger waiter may be served first.
 * Writes a waiter's serve makes (BLMOVE's destination) signal again; those signals are queued on the
 * calling thread and handled after the current one, not recursively, so a chain of BLMOVEs cannot grow the
 * stack. A writer signals before it replies, so once a push's reply is out, the clients it could serve have
 * been served or are being served, as in Redis. An EXEC holds its commands' signals back until its last
 * command ({@link #signalAfter}), so, as in Redis, no blocked client acts between two of them. Unlike
 * Redis, another client's plain pop may take the element between the push's commit and the signal.
 *
 * <p>Thread-safe: the registry is guarded by this object's monitor, held only for map updates, never while a
 * waiter serves. {@link #signal} costs one volatile read while nobody is blocked. Signals and serves run
 * inside the command gate's shared side (they are part of a command); ends may come from any thread.
 */
public final class BlockingKeys {

    /**
     * One blocked command. {@link #tryServe} is called with no lock held; it may take stripe locks and commit.
     * The registry never calls it for one waiter on two threads at once, nor after its wait ended.
     */
    public interface Waiter {

        /**
         * Takes what the command waits for from {@code readyKey} of physical database {@code database} and
         * replies; false, having changed nothing, when the key cannot serve it. Must not throw: a failure is
         * the command's error reply.
         */
        boolean tryServe(int database, byte[] readyKey);

        /** The server ended the wait ({@link #unblockAll}): reply {@code error}. Called at most once. */
        void unblocked(String error);

        /**
         * Whether a key that cannot serve this waiter may still serve the ones behind it: true for readers
         * that take nothing (a stream reader waits for entries after its own ID, or for its own group), false
         * for pops, where a key that cannot serve one waiter serves none.
         */
        default boolean keyMayServeOthers() {
            return false;
        }
    }

    /** What an offer of a key made of one waiter, for the signal's walk down the key's queue. */
    private enum Outcome {
        /** It took what it needed: later waiters may be served too. */
        SERVED,
        /** The key cannot serve it (empty, or another type): later waiters need not be asked. */
        NOT_READY,
        /** Another writer is serving it and will attempt this key too, or its wait ended: ask the next one. */
        PASSED
    }

    private static final int WAITING = 0;
    private static final int SERVING = 1;
    private static final int DONE = 2;

    /** A key of one physical database: where a waiter waits. */
    private record Slot(int database, ByteBuffer key) {
        Slot(int database, byte[] key) {
            this(database, ByteBuffer.wrap(key));
        }
    }

    /** A registered waiter and the state of its wait (see the class comment). */
    public final class Registration {
        private final Waiter waiter;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private final ConcurrentLinkedQueue<Slot> offers = new ConcurrentLinkedQueue<>();
        private final AtomicReference<Runnable> ending = new AtomicReference<>();
        /** Where it waits; guarded by the registry's monitor. */
        private final List<Slot> slots = new ArrayList<>();

        private Registration(Waiter waiter) {
            this.waiter = waiter;
        }

        /**
         * Ends the wait by running {@code how} (reply the timeout, forget a client that went away) unless it
         * is served first: at once when no writer is serving it, else once that serve has found nothing.
         * Only the first end counts. Any thread; never blocks; {@code how} must not block either.
         */
        public void end(Runnable how) {
            ending.compareAndSet(null, how);
            if (state.compareAndSet(WAITING, DONE)) {
                finish();
            }
        }

        /** Whether the wait has not ended yet (it may be being served right now). */
        public boolean waiting() {
            return state.get() != DONE;
        }

        private void finish() {
            remove(this);
            ending.get().run();
        }

        /** Offers {@code slot}; see the class comment for the protocol. */
        private Outcome offer(Slot slot) {
            offers.add(slot);
            boolean attemptedOwn = false;
            while (state.compareAndSet(WAITING, SERVING)) {
                Slot next;
                while ((next = offers.poll()) != null) {
                    attemptedOwn |= next == slot;
                    if (attempt(next)) {
                        state.set(DONE);
                        remove(this);
                        return Outcome.SERVED;
                    }
                }
                state.set(WAITING);
                if (ending.get() != null && state.compareAndSet(WAITING, DONE)) {
                    finish();
                    return Outcome.PASSED;
                }
                if (offers.isEmpty()) {
                    return attemptedOwn && !waiter.keyMayServeOthers() ? Outcome.NOT_READY : Outcome.PASSED;
                }
            }
            return Outcome.PASSED;
        }

        private boolean attempt(Slot slot) {
            try {
                return waiter.tryServe(slot.database(), slot.key().array());
            } catch (RuntimeException | Error e) {
                state.set(DONE); // a waiter that broke its contract must not stay SERVING, deaf to every end
                remove(this);
                throw e;
            }
        }
    }

    private static final ThreadLocal<ArrayDeque<Slot>> PENDING = new ThreadLocal<>();

    private final Map<Slot, ArrayDeque<Registration>> queues = new HashMap<>();
    private final Set<Registration> registered = new HashSet<>();
    private volatile int waiters;

    /**
     * Adds {@code waiter} at the end of the queue of each of {@code keys} in physical database
     * {@code database}, once per key however often the command named it. Caller holds the keys' stripe locks.
     */
    public synchronized Registration register(int database, Waiter waiter, List<byte[]> keys) {
        Registration registration = new Registration(waiter);
        for (byte[] key : keys) {
            Slot slot = new Slot(database, key);
            ArrayDeque<Registration> queue = queues.computeIfAbsent(slot, k -> new ArrayDeque<>());
            if (queue.peekLast() != registration) {
                queue.addLast(registration);
                registration.slots.add(slot);
            }
        }
        registered.add(registration);
        waiters = registered.size();
        notifyAll();
        return registration;
    }

    /** Takes {@code registration} out of every queue; a no-op when it is no longer registered. */
    private synchronized void remove(Registration registration) {
        if (!registered.remove(registration)) {
            return;
        }
        for (Slot slot : registration.slots) {
            ArrayDeque<Registration> queue = queues.get(slot);
            if (queue != null) {
                queue.remove(registration);
                if (queue.isEmpty()) {
                    queues.remove(slot);
                }
            }
        }
        waiters = registered.size();
        notifyAll();
    }

    /**
     * Ends every wait with {@code error} (Redis's UNBLOCKED when the instance stops being the leader). A
     * waiter being served meanwhile gets the error only if that serve finds nothing.
     */
    public void unblockAll(String error) {
        List<Registration> all;
        synchronized (this) {
            all = new ArrayList<>(registered);
        }
        for (Registration r : all) {
            r.end(() -> r.waiter.unblocked(error));
        }
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
            Map<Slot, ArrayDeque<Registration>> moved = new HashMap<>();
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
            for (Registration r : registered) {
                r.slots.replaceAll(s -> s.database() == a ? new Slot(b, s.key())
                        : s.database() == b ? new Slot(a, s.key()) : s);
            }
        }
        for (Slot slot : offered) {
            signal(slot);
        }
    }

    /**
     * Waits until exactly {@code count} commands wait on {@code key} (in any database), for at most
     * {@code timeoutMillis}; returns whether that happened. Lets tests and tools act once clients are known
     * to be blocked.
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
        for (Map.Entry<Slot, ArrayDeque<Registration>> e : queues.entrySet()) {
            n += e.getKey().key().equals(k) ? e.getValue().size() : 0;
        }
        return n;
    }

    /** How many commands wait on {@code key} of physical database {@code database}. */
    public synchronized int waitingOn(int database, byte[] key) {
        ArrayDeque<Registration> queue = queues.get(new Slot(database, key));
        return queue == null ? 0 : queue.size();
    }

    /**
     * {@code key} of physical database {@code database} may have become non-empty: serves its waiters, oldest
     * first. Call after the write committed and with no stripe lock held (a waiter takes its own locks).
     */
    public void signal(int database, byte[] key) {
        if (waiters == 0) {
            return;
        }
        signal(new Slot(database, key));
    }

    /**
     * Every key waited on in physical database {@code database} (negative: in every database) may have changed,
     * as after FLUSHDB or FLUSHALL: offers each to its waiters, so those a vanished key fails are told.
     */
    public void signalDatabase(int database) {
        if (waiters == 0) {
            return;
        }
        List<Slot> slots;
        synchronized (this) {
            slots = queues.keySet().stream().filter(s -> database < 0 || s.database() == database).toList();
        }
        for (Slot slot : slots) {
            signal(slot);
        }
    }

    /**
     * Runs {@code writes} with the signals they raise on this thread held back, then serves them, even when
     * the writes fail part-way: an EXEC's commands, so that, as in Redis, clients blocked on keys a
     * transaction fills are served after its last command and none of them acts between two of them; and
     * writes that are not in the database yet when they signal ({@link Keyspace#commitTogether}).
     */
    public void signalAfter(Runnable writes) {
        if (PENDING.get() != null) {
            writes.run(); // signals are already held back on this thread: its own loop serves these
            return;
        }
        ArrayDeque<Slot> pending = new ArrayDeque<>();
        PENDING.set(pending);
        try {
            writes.run();
        } finally {
            try {
                Slot next;
                while ((next = pending.pollFirst()) != null) {
                    serveWaitersOf(next);
                }
            } finally {
                PENDING.remove();
            }
        }
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
        List<Registration> inOrder;
        synchronized (this) {
            ArrayDeque<Registration> queue = queues.get(slot);
            if (queue == null) {
                return;
            }
            inOrder = new ArrayList<>(queue);
        }
        for (Registration r : inOrder) {
            if (r.offer(slot) == Outcome.NOT_READY) {
                return;
            }
        }
    }
}
