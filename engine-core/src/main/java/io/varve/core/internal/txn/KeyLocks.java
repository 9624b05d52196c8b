package io.varve.core.internal.txn;

import io.varve.core.txn.DeadlockException;
import io.varve.core.txn.LockTimeoutException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Exclusive per-key locks for pessimistic transactions, with a timeout and deadlock detection.
 *
 * <h2>Design</h2>
 * One table maps each locked key to its owner and each waiting owner to the key it waits for. The table's
 * own mutex is held only to read or change the table, never while a transaction runs or waits: a waiter
 * releases it in {@link Condition#awaitNanos}. Every release signals all waiters, who re-check their key;
 * waits are rare (transactions that touch the same key), so a shared condition costs little.
 *
 * <p>An owner waits for at most one key at a time, so the wait-for graph has at most one edge out of each
 * owner, and a cycle through a new waiter is found by following edges from the holder of the key it is about
 * to wait for. The owner whose wait would close the cycle is refused with {@link DeadlockException} naming the
 * cycle; it keeps the locks it holds until its transaction rolls back. Locks are reentrant per owner.
 */
public final class KeyLocks {

    /** A key in one column family. */
    public record LockKey(int family, Bytes key) {
        @Override
        public String toString() {
            return "family " + family + " key " + key;
        }
    }

    private final ReentrantLock mutex = new ReentrantLock();
    private final Condition released = mutex.newCondition();
    /** Guarded by mutex. */
    private final Map<LockKey, Object> holders = new HashMap<>();
    /** Guarded by mutex: owner -> the key it waits for. */
    private final Map<Object, LockKey> waits = new HashMap<>();

    /**
     * Locks {@code key} for {@code owner}, waiting up to {@code timeoutNanos} for another owner to release it.
     *
     * @throws LockTimeoutException when the key is still held by another owner after the timeout
     * @throws DeadlockException    when waiting would close a cycle of owners waiting for each other
     */
    public void lock(Object owner, LockKey key, long timeoutNanos) {
        mutex.lock();
        try {
            long remaining = timeoutNanos;
            while (true) {
                Object holder = holders.get(key);
                if (holder == null) {
                    holders.put(key, owner);
                    return;
                }
                if (holder == owner) {
                    return;
                }
                List<String> cycle = cycleThrough(owner, key);
                if (cycle != null) {
                    throw new DeadlockException(cycle);
                }
                if (remaining <= 0) {
                    throw new LockTimeoutException(owner + " timed out waiting for " + key + " held by " + holder);
                }
                waits.put(owner, key);
                try {
                    remaining = released.awaitNanos(remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LockTimeoutException(owner + " was interrupted waiting for " + key);
                } finally {
                    waits.remove(owner);
                }
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Releases every key in {@code keys} that {@code owner} holds. */
    public void unlockAll(Object owner, Iterable<LockKey> keys) {
        mutex.lock();
        try {
            for (LockKey key : keys) {
                holders.remove(key, owner);
            }
            released.signalAll();
        } finally {
            mutex.unlock();
        }
    }

    /** Whether {@code owner} is waiting for a key now (for tests that need waits to be in place). */
    public boolean isWaiting(Object owner) {
        mutex.lock();
        try {
            return waits.containsKey(owner);
        } finally {
            mutex.unlock();
        }
    }

    /**
     * The cycle {@code owner} would close by waiting for {@code key}, described edge by edge, or null. Caller
     * holds the mutex.
     */
    private List<String> cycleThrough(Object owner, LockKey key) {
        List<String> edges = new ArrayList<>();
        LockKey wanted = key;
        Object waiter = owner;
        for (int steps = 0; steps <= waits.size(); steps++) {
            Object holder = holders.get(wanted);
            if (holder == null) {
                return null;
            }
            edges.add(waiter + " waits for " + wanted + " held by " + holder);
            if (holder == owner) {
                return edges;
            }
            wanted = waits.get(holder);
            if (wanted == null) {
                return null;
            }
            waiter = holder;
        }
        return null;
    }
}
