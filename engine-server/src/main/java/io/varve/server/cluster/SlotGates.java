package io.varve.server.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link SlotGate}s of this node's groups, where a group's accept entry waits for the groups it takes
 * slots from to apply their fence here. Every gate change and registration wakes the waiters; closing the node
 * wakes them for good, and a waiter then throws, which stops its group's state machine before it applies the
 * entry (a restart replays it), so no group's shutdown waits on another's.
 */
final class SlotGates {

    private final Map<Integer, SlotGate> gates = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private boolean closed;
    /** Accept entries waiting now (tests wait for one to be waiting). */
    private int waiting;
    private volatile Runnable onChange = () -> { };

    void onChange(Runnable listener) {
        this.onChange = listener;
    }

    void register(int group, SlotGate gate) {
        gates.put(group, gate);
        changed();
    }

    SlotGate get(int group) {
        return gates.get(group);
    }

    /** Waits until {@code group}'s gate here has applied change {@code change} or a later one. */
    void awaitChange(int group, long change) {
        synchronized (lock) {
            while (!closed) {
                SlotGate gate = gates.get(group);
                if (gate != null && gate.lastChange() >= change) {
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
