package io.varve.core.internal.compaction;

import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One unit of compaction work: tables from {@code level} merged with the overlapping tables of
 * {@code outputLevel} into new tables at {@code outputLevel}.
 */
public record Compaction(int level, int outputLevel, TableMeta[] inputs, TableMeta[] outputLevelInputs,
                         boolean manual) {

    public List<TableMeta> allInputs() {
        List<TableMeta> all = new ArrayList<>(List.of(inputs));
        all.addAll(List.of(outputLevelInputs));
        return all;
    }

    public long inputBytes() {
        long bytes = 0;
        for (TableMeta t : allInputs()) {
            bytes += t.fileSize();
        }
        return bytes;
    }

    /**
     * Whether the inputs can go down a level by a manifest edit alone, without being rewritten (RocksDB's
     * trivial move): an automatic compaction with nothing to merge with at the output level and inputs
     * disjoint from each other. Refused when the inputs overlap more than {@code grandparentLimit} bytes of
     * the level below the output: moved down, they would later pull that much into one compaction. Entries
     * keep their sequences, tombstones and ingestion sequence through a move, so what a read sees is unchanged.
     */
    public boolean isTrivialMove(Version version, long grandparentLimit) {
        if (manual || outputLevelInputs.length > 0 || outputLevel != level + 1) {
            return false;
        }
        TableMeta[] byKey = inputs.clone();
        Arrays.sort(byKey, (a, b) -> Keys.compare(a.smallestKey(), b.smallestKey()));
        for (int i = 1; i < byKey.length; i++) {
            if (Keys.compare(byKey[i - 1].largestKey(), byKey[i].smallestKey()) >= 0) {
                return false;
            }
        }
        if (outputLevel + 1 >= Version.NUM_LEVELS) {
            return true;
        }
        byte[][] range = keyRange(inputs);
        long grandparentBytes = 0;
        for (TableMeta t : overlapping(version, outputLevel + 1, range[0], range[1])) {
            grandparentBytes += t.fileSize();
        }
        return grandparentBytes <= grandparentLimit;
    }

    /** Smallest and largest user key over {@code tables}. */
    static byte[][] keyRange(TableMeta[] tables) {
        byte[] smallest = null;
        byte[] largest = null;
        for (TableMeta t : tables) {
            if (smallest == null || Keys.compare(t.smallestKey(), smallest) < 0) {
                smallest = t.smallestKey();
            }
            if (largest == null || Keys.compare(t.largestKey(), largest) > 0) {
                largest = t.largestKey();
            }
        }
        return new byte[][] {smallest, largest};
    }

    /**
     * The tables of a sorted level overlapping {@code [smallest, largest]}: contiguous in the level, so found
     * by binary search rather than a scan of every table.
     */
    static TableMeta[] overlapping(Version version, int level, byte[] smallest, byte[] largest) {
        return version.level(level).overlapping(smallest, largest).toArray(new TableMeta[0]);
    }
}
