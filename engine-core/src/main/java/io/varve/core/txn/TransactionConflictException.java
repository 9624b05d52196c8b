package io.varve.core.txn;

/**
 * An optimistic transaction's commit was refused: a key it read for update or wrote was written by someone
 * else after the transaction's snapshot. Nothing of the transaction was written; retry it from the start.
 */
public final class TransactionConflictException extends RuntimeException {

    public TransactionConflictException(String message) {
        super(message);
    }
}
