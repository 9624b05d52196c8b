package io.varve.stress;

/**
 * A defect a campaign is known to find and that is not fixed yet (docs/reliability.md lists them). A cycle
 * that hits one is counted under it, not as a failure, so the campaign still finds new defects while it waits
 * for the fix; the verdict names every known defect it hit.
 */
public enum KnownDefect {
    /**
     * engine-raftlog: the default mode's tail rule cuts bytes that a committed purge depended on, as if they
     * were a torn write: damage to the newest append file before the point where the last purge took its
     * snapshot (synced before the purge committed), or damage to the newest rewrite file that removes a
     * committed purge's commit (synced before the purge deleted the append files it copied). What is left
     * replays to a state that never existed: older values over newer ones, or entries copied from deleted
     * files lost. A torn write cannot reach below those points; recovery should know where the append queue
     * stood at the last commit, and that deleted append files imply a commit, and refuse.
     */
    RAFTLOG_TAIL_CUT_ACROSS_PURGE("engine-raftlog: the default mode cuts, as a torn tail, synced bytes that a "
            + "committed purge depended on");

    private final String description;

    KnownDefect(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
