package io.varve.core.txn;

import java.time.Duration;
import java.util.Objects;

/**
 * How a transaction controls concurrency. Optimistic (the default, RocksDB's OptimisticTransactionDB): no
 * locks while it runs; reads see its snapshot; commit fails with {@link TransactionConflictException} if a key
 * it read for update or wrote changed after the snapshot. Pessimistic (RocksDB's TransactionDB): every key it
 * reads for update or writes is locked until commit or rollback, waiting up to the lock timeout, with deadlock
 * detection; reads see the latest committed state.
 */
public final class TransactionOptions {

    private static final TransactionOptions OPTIMISTIC = new TransactionOptions(false, Duration.ZERO);

    private final boolean pessimistic;
    private final Duration lockTimeout;

    private TransactionOptions(boolean pessimistic, Duration lockTimeout) {
        this.pessimistic = pessimistic;
        this.lockTimeout = lockTimeout;
    }

    public static TransactionOptions optimistic() {
        return OPTIMISTIC;
    }

    /** Pessimistic, waiting at most {@code lockTimeout} for each lock (zero: never wait). */
    public static TransactionOptions pessimistic(Duration lockTimeout) {
        Objects.requireNonNull(lockTimeout, "lockTimeout");
        if (lockTimeout.isNegative()) {
            throw new IllegalArgumentException("lockTimeout must not be negative");
        }
        return new TransactionOptions(true, lockTimeout);
    }

    public boolean isPessimistic() {
        return pessimistic;
    }

    public Duration lockTimeout() {
        return lockTimeout;
    }

    @Override
    public String toString() {
        return pessimistic ? "pessimistic(lockTimeout=" + lockTimeout + ")" : "optimistic";
    }
}
