package io.varve.core;

/**
 * A consistent, immutable point-in-time view: reads at a snapshot see exactly the writes that were visible
 * when it was taken, however many writes follow. Close it when done so the engine can discard the old
 * versions it keeps alive.
 */
public interface Snapshot extends AutoCloseable {

    /** The sequence number of the last write this snapshot sees. */
    long sequence();

    @Override
    void close();
}
