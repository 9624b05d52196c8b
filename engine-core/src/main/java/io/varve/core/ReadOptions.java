package io.varve.core;

import java.util.Arrays;

/**
 * How a read sees the database: at a {@link Snapshot} (or the latest state), and for iterators, within
 * optional bounds — lower inclusive, upper exclusive, as in RocksDB. Immutable; the {@code with} methods
 * return copies, and bounds are copied so later changes to the caller's arrays do not affect reads.
 */
public final class ReadOptions {

    public static final ReadOptions DEFAULT = new ReadOptions(null, null, null);

    private final Snapshot snapshot;
    private final byte[] lowerBound;
    private final byte[] upperBound;

    private ReadOptions(Snapshot snapshot, byte[] lowerBound, byte[] upperBound) {
        this.snapshot = snapshot;
        this.lowerBound = lowerBound;
        this.upperBound = upperBound;
    }

    /** Reads at {@code snapshot}: they see exactly the writes that were visible when it was taken. */
    public static ReadOptions at(Snapshot snapshot) {
        if (snapshot == null) {
            throw new NullPointerException("snapshot");
        }
        return new ReadOptions(snapshot, null, null);
    }

    public ReadOptions withSnapshot(Snapshot newSnapshot) {
        return new ReadOptions(newSnapshot, lowerBound, upperBound);
    }

    /** Iterators see no key below {@code bound} (inclusive bound; null removes it). */
    public ReadOptions withLowerBound(byte[] bound) {
        return new ReadOptions(snapshot, bound == null ? null : bound.clone(), upperBound);
    }

    /** Iterators see no key at or above {@code bound} (exclusive bound; null removes it). */
    public ReadOptions withUpperBound(byte[] bound) {
        return new ReadOptions(snapshot, lowerBound, bound == null ? null : bound.clone());
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public byte[] lowerBound() {
        return lowerBound == null ? null : lowerBound.clone();
    }

    public byte[] upperBound() {
        return upperBound == null ? null : upperBound.clone();
    }

    byte[] lowerBoundUnsafe() {
        return lowerBound;
    }

    byte[] upperBoundUnsafe() {
        return upperBound;
    }

    @Override
    public String toString() {
        return "ReadOptions[snapshot=" + snapshot + ", lower=" + Arrays.toString(lowerBound)
                + ", upper=" + Arrays.toString(upperBound) + "]";
    }
}
