package io.varve.stress.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a cycle of the cluster campaign does to the node it picks: kill it with SIGKILL and restart it, or cut
 * its Raft traffic off (a partition: it keeps running and answering clients) and heal the cut. A run given
 * several kinds takes them in turn, cycle by cycle, so even a short run has each.
 */
public enum ClusterFault {
    KILL, PARTITION;

    /** {@code kill,partition} (any order, case-insensitive) as the kinds in that order. */
    public static List<ClusterFault> parse(String list) {
        List<ClusterFault> faults = new ArrayList<>();
        for (String name : list.split(",")) {
            ClusterFault fault;
            try {
                fault = valueOf(name.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault " + name.trim() + " (kill, partition)");
            }
            if (faults.contains(fault)) {
                throw new IllegalArgumentException("fault " + name.trim() + " named twice");
            }
            faults.add(fault);
        }
        return List.copyOf(faults);
    }

    /** The fault of cycle {@code cycle} (from 1). */
    static ClusterFault ofCycle(List<ClusterFault> faults, long cycle) {
        return faults.get((int) ((cycle - 1) % faults.size()));
    }
}
