package io.varve.server.command;

import java.util.BitSet;
import java.util.List;

/**
 * The hash slots whose keys a server answers for in commands that walk its keyspace (DBSIZE, KEYS, SCAN,
 * RANDOMKEY, CLUSTER COUNTKEYSINSLOT/GETKEYSINSLOT) and that FLUSHALL/FLUSHDB empty. A standalone or
 * single-group server serves every slot; a cluster node holds every group's data but serves, as a Redis
 * Cluster node does, only the slots it is shown as serving: those of the groups it leads, or, leading none,
 * those of the node it is shown as a replica of (docs/cluster.md, "Keys a node counts"). Immutable: a snapshot
 * of leadership when it was made.
 */
public final class ServedSlots {

    /** Every slot: a server that is not a cluster node. */
    public static final ServedSlots EVERY = new ServedSlots(null, true);

    /** The slots of each served group, one set per group; null for every slot. */
    private final List<BitSet> groups;
    private final BitSet union;
    private final boolean led;

    private ServedSlots(List<BitSet> groups, boolean led) {
        this.groups = groups;
        this.led = led;
        if (groups == null) {
            this.union = null;
        } else {
            this.union = new BitSet(KeySlot.SLOTS);
            groups.forEach(union::or);
        }
    }

    /**
     * @param groups the slots of each served group
     * @param led    whether this node leads those groups (and may write them), not only replicates them
     */
    public static ServedSlots of(List<BitSet> groups, boolean led) {
        return new ServedSlots(List.copyOf(groups), led);
    }

    /** Whether every slot is served: nothing needs filtering. */
    public boolean everySlot() {
        return groups == null;
    }

    public boolean serves(int slot) {
        return union == null || union.get(slot);
    }

    /** The served slots, a copy; null when {@link #everySlot}. */
    public BitSet slots() {
        return union == null ? null : (BitSet) union.clone();
    }

    /** Whether the slot of user key {@code key} is served. */
    public boolean servesKey(byte[] key) {
        return union == null || union.get(KeySlot.of(key));
    }

    /** The slots of each served group (a write must stay within one); empty when {@link #everySlot}. */
    public List<BitSet> groups() {
        return groups == null ? List.of() : groups;
    }

    /** Whether this node leads the served groups; a node that only replicates them may not flush them. */
    public boolean led() {
        return led;
    }
}
