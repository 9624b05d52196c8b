package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.server.command.ClusterView;
import io.varve.server.store.KeyEncoding;

import java.util.ArrayList;
import java.util.List;

/**
 * The engine key ranges that hold a group's data: for each of its slot ranges, the metadata keys of those
 * slots and their subkeys, each one contiguous range in the slotted layout ({@link KeyEncoding}). What a
 * group's snapshot exports and what installing one replaces (docs/cluster.md, "Snapshots per group").
 * Internal keys (the version floor, write barriers) lie outside every group's ranges.
 */
final class GroupKeyRanges {

    private GroupKeyRanges() {
    }

    /** The ranges of {@code group} under {@code map}, ascending and disjoint, adjacent slot ranges merged. */
    static List<Db.Range> of(SlotMap map, int group) {
        List<ClusterView.SlotRange> slots = map.rangesOf(group);
        List<Db.Range> ranges = new ArrayList<>();
        for (ClusterView.SlotRange r : slots) {
            ranges.add(new Db.Range(KeyEncoding.slotMetadataStart(r.first()),
                    KeyEncoding.slotMetadataStart(r.last() + 1)));
        }
        for (ClusterView.SlotRange r : slots) {
            ranges.add(new Db.Range(KeyEncoding.slotSubkeyStart(r.first()), KeyEncoding.slotSubkeyStart(r.last() + 1)));
        }
        return ranges;
    }
}
