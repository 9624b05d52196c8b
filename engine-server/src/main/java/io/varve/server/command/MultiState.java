package io.varve.server.command;

import java.util.ArrayList;
import java.util.List;

/**
 * One connection's MULTI state and WATCHed keys. Its own commands change it one at a time; other clients'
 * writes only {@link #markDirty} it (through the {@link WatchRegistry}), and the connection's close may
 * unwatch it from the event loop, hence the synchronized methods (never contended in practice).
 */
public final class MultiState {

    /** A watched key and the expiry it had when watched (0: none, or absent). */
    record Watched(WatchRegistry.Key key, long expireAt) {
    }

    private final List<byte[][]> queued = new ArrayList<>();
    private final List<Watched> watched = new ArrayList<>();
    /** Volatile: read on every command's fast paths (inline GETs, SET runs) without the monitor. */
    private volatile boolean active;
    private volatile boolean executing;
    private boolean failed;
    /** A queued command may write or replicate (CLIENT PAUSE WRITE holds the EXEC). */
    private boolean queuedWrite;
    private volatile boolean dirty;
    /** Cluster mode: the hash slot the watched and queued keys share; -1 while there are none. */
    private int slot = -1;

    /** Inside MULTI: commands are queued, not run. */
    public boolean active() {
        return active;
    }

    /**
     * EXEC is running this connection's queued commands, holding the command gate's exclusive side: a
     * blocking command must then not wait (Redis runs them as if their timeout had passed), or it would
     * stop the whole server.
     */
    public boolean executing() {
        return executing;
    }

    void executing(boolean value) {
        executing = value;
    }

    synchronized void begin() {
        active = true;
        failed = false;
        queuedWrite = false;
        queued.clear();
    }

    /** Queues a command; {@code writes}: it may write or replicate. */
    synchronized void queue(byte[][] args, boolean writes) {
        queued.add(args);
        queuedWrite |= writes;
    }

    /** Something queued may write: EXEC is then a write for CLIENT PAUSE WRITE, as in Redis. */
    synchronized boolean queuedWrite() {
        return active && queuedWrite;
    }

    /** A command was refused while queuing (unknown, wrong arity, not allowed): EXEC will abort. */
    synchronized void fail() {
        if (active) {
            failed = true;
        }
    }

    synchronized boolean failed() {
        return failed;
    }

    synchronized int queuedCount() {
        return active ? queued.size() : -1;
    }

    /** Ends MULTI and returns what was queued. */
    synchronized List<byte[][]> end() {
        List<byte[][]> commands = List.copyOf(queued);
        queued.clear();
        active = false;
        failed = false;
        queuedWrite = false;
        if (watched.isEmpty()) {
            slot = -1;
        }
        return commands;
    }

    synchronized void watch(WatchRegistry.Key key, long expireAt) {
        for (Watched w : watched) {
            if (w.key().equals(key)) {
                return;
            }
        }
        watched.add(new Watched(key, expireAt));
    }

    synchronized List<Watched> watched() {
        return List.copyOf(watched);
    }

    synchronized int watchedCount() {
        return watched.size();
    }

    /**
     * Forgets every watched key and the dirty mark. Call it only once the keys are out of the
     * {@link WatchRegistry}, so no write can mark the transaction after the reset.
     */
    synchronized void clearWatches() {
        watched.clear();
        dirty = false;
        if (!active) {
            slot = -1;
        }
    }

    /**
     * Cluster mode: ties the transaction (its watches and queued commands) to {@code slot}, as Redis Cluster
     * confines a transaction to one slot. Returns false, changing nothing, if it is tied to another.
     */
    public synchronized boolean pinSlot(int slot) {
        if (this.slot >= 0 && this.slot != slot) {
            return false;
        }
        this.slot = slot;
        return true;
    }

    /** The slot the transaction is tied to, or -1 if no key was watched or queued. */
    public synchronized int pinnedSlot() {
        return slot;
    }

    /** A watched key was written by someone: the next EXEC answers a null array. */
    void markDirty() {
        dirty = true;
    }

    boolean dirty() {
        return dirty;
    }
}
