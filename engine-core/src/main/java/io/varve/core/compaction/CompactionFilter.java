package io.varve.core.compaction;

/**
 * Decides, during compaction, what happens to each value: keep it, remove it, or replace it. This is how
 * data with an expiry or an MVCC garbage-collection horizon is cleaned up without a scan (TiKV runs its MVCC
 * GC this way).
 *
 * <p>Called for the newest version of each key that no live snapshot could still read in an older state, so
 * a filter never changes what an open snapshot sees. Called concurrently from compaction threads; must be
 * thread-safe and fast, and must not call back into the database synchronously (writes it wants to make go
 * through an ordinary write, from another thread if they must wait).
 */
@FunctionalInterface
public interface CompactionFilter {

    /** The outcome for one value. */
    sealed interface Decision permits Keep, Remove, ChangeValue {
    }

    /** Leave the value as it is. */
    record Keep() implements Decision {
    }

    /** Drop the key, as if deleted when this compaction ran. */
    record Remove() implements Decision {
    }

    /** Replace the value. */
    record ChangeValue(byte[] newValue) implements Decision {
    }

    Decision KEEP = new Keep();
    Decision REMOVE = new Remove();

    /**
     * @param level the level the compaction writes to
     * @param key   the user key
     * @param value the current value
     */
    Decision filter(int level, byte[] key, byte[] value);

    /**
     * The filter one compaction uses, called once when the compaction starts; it then sees that compaction's
     * keys in ascending order on one thread. Stateless filters return themselves (the default); a filter that
     * decides by looking at neighbouring keys (e.g. MVCC garbage collection, which keeps only the newest
     * version below a safe point) returns a fresh instance, so concurrent compactions never share its state.
     */
    default CompactionFilter forCompaction() {
        return this;
    }
}
