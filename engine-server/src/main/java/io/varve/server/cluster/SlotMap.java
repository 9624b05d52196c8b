package io.varve.server.cluster;

import io.varve.server.command.ClusterView;
import io.varve.server.command.KeySlot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which Raft group owns each of the 16384 hash slots, at an epoch. Immutable: a topology change would make a
 * new map with a higher epoch. Every slot belongs to exactly one group; a group owns one or more ranges.
 *
 * @param owners the owning group of each slot (index = slot)
 * @param epoch  grows with every change of the map
 */
public record SlotMap(int[] owners, long epoch) {

    public SlotMap {
        if (owners.length != KeySlot.SLOTS) {
            throw new IllegalArgumentException("a slot map has " + KeySlot.SLOTS + " slots, not " + owners.length);
        }
        owners = owners.clone();
    }

    /**
     * {@code groups} groups, each owning one contiguous range, the sizes differing by at most one slot, in
     * slot order: group 0 owns the lowest slots.
     */
    public static SlotMap evenly(int groups, long epoch) {
        if (groups < 1 || groups > KeySlot.SLOTS) {
            throw new IllegalArgumentException("groups must be between 1 and " + KeySlot.SLOTS + ": " + groups);
        }
        int[] owners = new int[KeySlot.SLOTS];
        int base = KeySlot.SLOTS / groups;
        int extra = KeySlot.SLOTS % groups;
        int slot = 0;
        for (int g = 0; g < groups; g++) {
            int size = base + (g < extra ? 1 : 0);
            Arrays.fill(owners, slot, slot + size, g);
            slot += size;
        }
        return new SlotMap(owners, epoch);
    }

    public int groupOf(int slot) {
        return owners[slot];
    }

    public int groups() {
        return Arrays.stream(owners).max().orElse(-1) + 1;
    }

    /** The ranges {@code group} owns, ascending; empty if it owns no slot. */
    public List<ClusterView.SlotRange> rangesOf(int group) {
        List<ClusterView.SlotRange> ranges = new ArrayList<>();
        int start = -1;
        for (int slot = 0; slot <= KeySlot.SLOTS; slot++) {
            boolean owned = slot < KeySlot.SLOTS && owners[slot] == group;
            if (owned && start < 0) {
                start = slot;
            } else if (!owned && start >= 0) {
                ranges.add(new ClusterView.SlotRange(start, slot - 1));
                start = -1;
            }
        }
        return ranges;
    }

    @Override
    public int[] owners() {
        return owners.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlotMap other && epoch == other.epoch && Arrays.equals(owners, other.owners);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(owners) + Long.hashCode(epoch);
    }

    @Override
    public String toString() {
        return "SlotMap[epoch " + epoch + ", " + groups() + " groups]";
    }
}
