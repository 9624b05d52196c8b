package io.varve.jmh.store;

/**
 * One optimistic transaction: reads that register the key for conflict checking, buffered writes, and a
 * commit that either applies everything or, when another transaction wrote a registered key after this one
 * began, applies nothing. Used from one thread. Close it after commit (a no-op then) or to abandon it.
 */
public interface KvTransaction extends AutoCloseable {

    /** The key's value as this transaction sees it (null if absent), checked for conflicts at commit. */
    byte[] getForUpdate(byte[] key);

    void put(byte[] key, byte[] value);

    /** @return true if committed, false if a conflict aborted it (nothing was written) */
    boolean commit();

    @Override
    void close();
}
