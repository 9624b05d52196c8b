package io.varve.stress;

/**
 * A defect a campaign is known to find and that is not fixed yet (docs/reliability.md lists them). A cycle
 * that hits one is counted under it, not as a failure, so the campaign still finds new defects while it waits
 * for the fix; the verdict names every known defect it hit.
 */
public enum KnownDefect {
    // None at the moment: add a constant here, with the row of docs/reliability.md it stands for.
    ;

    private final String description;

    KnownDefect(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
