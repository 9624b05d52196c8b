package io.varve.core.compaction;

import io.varve.core.base.Keys;
import io.varve.core.version.TableMeta;
import io.varve.core.version.Version;

import java.util.ArrayList;
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
