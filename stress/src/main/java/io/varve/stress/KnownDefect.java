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
    MANIFEST_REFERENCES_MISSING_TABLE("engine-core: a damaged MANIFEST opens, then reads fail on a missing table");

    private final String description;

    KnownDefect(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
