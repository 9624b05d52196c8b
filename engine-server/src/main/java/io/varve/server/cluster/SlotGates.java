package io.varve.server.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;

/**
 * The {@link SlotGate}s of this node's groups, where a group's accept entry waits for the groups it takes
 * slots from to apply their fence here. Every gate change and registration wakes the waiters; closing the node
 * wakes them for good, and a waiter then throws, which stops its group's state machine before it applies the
 * entry (a restart replays it), so no group's shutdown waits on another's.
 *
 * <p>A wait is only for a group this node replicates: one whose gate is open here, or that the topology names
 * this node a member of (a group a split created, opened soon). A group replicated elsewhere only never
 * applies its fence here, and none of its records land here, so there is nothing to wait for; a member
 * retired from a group ({@link #unregister}) stops being waited for once its data is gone.
 */
final class SlotGates {

    private final Map<Integer, SlotGate> gates = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private boolean closed;
    /** Accept entries waiting now (tests wait for one to be waiting). */
    private int waiting;
    private volatile Runnable onChange = () -> { };
    private volatile IntPredicate memberHere = g -> true;

    void onChange(Runnable listener) {
        this.onChange = listener;
    }

    /** Tells the gates which groups the topology names this node a member of. */
    void memberHere(IntPredicate member) {
        this.memberHere = member;
    }

    void register(int group, SlotGate gate) {
        gates.put(group, gate);
        changed();
    }

    /** Forgets {@code group}'s gate: this node no longer replicates it. */
    void unregister(int group) {
        gates.remove(group);
        wakeWaiters();
    }

    /** Wakes the waiters to look again (the topology changed which groups this node is a member of). */
    void wakeWaiters() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    SlotGate get(int group) {
        return gates.get(group);
    }

    /**
     * Waits until {@code group}'s gate here has applied change {@code change} or a later one; at once if this
     * node does not replicate {@code group}.
     */
    void awaitChange(int group, long change) {
        synchronized (lock) {
            while (!closed) {
                SlotGate gate = gates.get(group);
                if (gate != null ? gate.lastChange() >= change : !memberHere.test(group)) {
                    return;
                }
                waiting++;
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for group " + group, e);
                } finally {
                    waiting--;
                }
            }
            throw new IllegalStateException("the node is closing; group " + group + " never reached change "
                    + change);
        }
    }

    int waiting() {
        synchronized (lock) {
            return waiting;
        }
    }

    void changed() {
        synchronized (lock) {
            lock.notifyAll();
        }
        onChange.run();
    }

    void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
    }
}
