package io.varve.replication;

import java.util.List;

/**
 * Decides, entry by entry, what a committed entry of a group sharing its database applies: the entry's
 * operations as proposed, others in their place, or nothing. A refused entry changes nothing on any member and
 * its proposer is told so ({@link EntryRefusedException}); its index still counts as applied.
 *
 * <p>Every member must decide alike, so a gate may decide only from the entry and from state it keeps of the
 * group's own earlier entries (persisted by those entries' operations, read back when the member opens).
 * It may wait, on the group's state-machine thread, for another group of the process to reach a point in its
 * log: jraft applies each group on a thread of its own, so that delays this group only. It must never wait for
 * its own group. docs/cluster.md ("Moving slots between groups") is the one user: a group refuses the slots
 * it handed away, and a group taking slots over waits until the old group's handover is applied locally.
 */
@FunctionalInterface
public interface ApplyGate {

    /** Applies every entry as proposed. */
    ApplyGate OPEN = (index, ops) -> ops;

    /**
     * The operations entry {@code index} applies, or null to refuse it. Called on the state-machine thread
     * before the entry's effects are gathered, once per member and entry (entries at or below the member's
     * stored applied index are not offered again after a restart).
     */
    List<ReplicatedBatch.Op> admit(long index, List<ReplicatedBatch.Op> ops);
}
