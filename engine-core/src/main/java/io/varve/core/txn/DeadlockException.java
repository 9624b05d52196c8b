package io.varve.core.txn;

import java.util.List;

/**
 * A pessimistic transaction's lock request was refused because waiting would close a cycle of transactions
 * waiting for each other. Roll the transaction back (releasing its locks) and retry it.
 */
public final class DeadlockException extends RuntimeException {

    private final List<String> cycle;

    public DeadlockException(List<String> cycle) {
        super("deadlock: " + String.join("; ", cycle));
        this.cycle = List.copyOf(cycle);
    }

    /** The cycle, one "waits for ... held by ..." edge per element, starting with the refused request. */
    public List<String> cycle() {
        return cycle;
    }
}
