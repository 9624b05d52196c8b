package io.varve.core.txn;

/** A pessimistic transaction waited longer than its lock timeout for a key another transaction holds. */
public final class LockTimeoutException extends RuntimeException {

    public LockTimeoutException(String message) {
        super(message);
    }
}
