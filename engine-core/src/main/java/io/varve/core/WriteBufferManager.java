package io.varve.core;

import io.varve.core.internal.WriteBufferBudget;

/**
 * One memtable budget shared by several databases of a process (RocksDB's {@code WriteBufferManager}). Give the
 * same instance to each database's {@link Options#withWriteBufferManager}: the bytes all their memtables hold
 * then count against one figure. When the mutable memtables reach 7/8 of it (or the total reaches it while
 * they are at least half), the database with the largest mutable memtables flushes them; when the total
 * reaches the budget, writers of every member wait until flushes bring it back under (a write with
 * {@link WriteOptions#noSlowdown()} fails with {@link WriteStallException} instead). The total may pass the
 * budget by the writes in flight when it filled: at most one batch per writing thread.
 *
 * <p>Each database's own write buffer size still applies: a memtable that reaches it is flushed whatever the
 * budget. A closed database leaves the budget; a failed one stops counting. See docs/memtable.md, "A budget
 * shared by databases". Thread-safe; needs no closing.
 */
public final class WriteBufferManager {

    private final WriteBufferBudget budget;

    /** A budget of {@code budgetBytes} of memtables (at least 1). */
    public WriteBufferManager(long budgetBytes) {
        this.budget = new WriteBufferBudget(budgetBytes);
    }

    public long budgetBytes() {
        return budget.budgetBytes();
    }

    /** Memtable bytes the member databases hold, as each last measured itself (after its latest write or flush). */
    public long usedBytes() {
        return budget.usedBytes();
    }

    /** The part of {@link #usedBytes()} in mutable memtables (still taking writes). */
    public long mutableBytes() {
        return budget.mutableBytes();
    }

    /** Writes that had to wait because the budget was full. */
    public long stallCount() {
        return budget.stallCount();
    }

    /** Flushes this budget asked a database for (beyond those its own write buffer size causes). */
    public long flushCount() {
        return budget.flushCount();
    }

    /** Open databases using this budget. */
    public int databaseCount() {
        return budget.memberCount();
    }

    WriteBufferBudget budget() {
        return budget;
    }

    @Override
    public String toString() {
        return "WriteBufferManager[" + usedBytes() + "/" + budgetBytes() + " bytes, " + databaseCount() + " databases]";
    }
}
