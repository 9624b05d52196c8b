package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.server.store.KeyEncoding;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The engine key ranges that hold the data of a set of slots: for each run of consecutive slots, the metadata
 * keys of those slots and their subkeys, each one contiguous range in the slotted layout ({@link KeyEncoding}).
 * What a group's snapshot exports and what installing one replaces (docs/cluster.md, "Snapshots per group").
 * Internal keys (the version floor, write barriers, slot gates) lie outside every slot's ranges.
 */
final class GroupKeyRanges {

    private GroupKeyRanges() {
    }

    /** The ranges of {@code slots}, ascending and disjoint: all metadata ranges, then all subkey ranges. */
    static List<Db.Range> of(BitSet slots) {
        List<int[]> runs = new ArrayList<>();
        for (int s = slots.nextSetBit(0); s >= 0; ) {
            int end = slots.nextClearBit(s);
            runs.add(new int[] {s, end});
            s = slots.nextSetBit(end);
        }
        List<Db.Range> ranges = new ArrayList<>();
        for (int[] r : runs) {
            ranges.add(new Db.Range(KeyEncoding.slotMetadataStart(r[0]), KeyEncoding.slotMetadataStart(r[1])));
        }
        for (int[] r : runs) {
            ranges.add(new Db.Range(KeyEncoding.slotSubkeyStart(r[0]), KeyEncoding.slotSubkeyStart(r[1])));
        }
        return ranges;
    }
}
