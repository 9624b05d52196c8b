package io.varve.stress;

/**
 * A defect a campaign is known to find and that is not fixed yet (issue 19 names them). A cycle that hits
 * one is counted under it, not as a failure, so the campaign still finds new defects while it waits for the
 * fix; the verdict names every known defect it hit.
 */
public enum KnownDefect {
    /**
     * engine-core: a truncated or damaged MANIFEST opens normally and serves an older or empty state, losing
     * data that lived only in tables. Open should detect a manifest that is behind the directory and refuse.
     */
    MANIFEST_BEHIND_DIRECTORY("engine-core: a damaged MANIFEST opens and serves an older or empty state"),
    /**
     * engine-core: a damaged MANIFEST opens, then reads fail with NoSuchFileException (or another I/O error)
     * for a table the manifest references. Open should check that every live table exists with its size.
     */
    MANIFEST_REFERENCES_MISSING_TABLE("engine-core: a damaged MANIFEST opens, then reads fail on a missing table"),
    /**
     * engine-raftlog: damage to the newest append file before the point where the last purge took its snapshot
     * (bytes that were synced before the purge committed) is cut off as a torn tail by the default mode, and
     * replaying what is left over the purge's snapshot gives a state that never existed (older values over
     * newer ones, entries missing). A torn write cannot reach below that point; recovery should know where the
     * append queue stood at the purge's commit and refuse.
     */
    RAFTLOG_TAIL_CUT_BELOW_PURGE_SNAPSHOT("engine-raftlog: the default mode cuts synced batches older than the last "
            + "purge's snapshot as a tail, mixing states");

    private final String description;

    KnownDefect(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
