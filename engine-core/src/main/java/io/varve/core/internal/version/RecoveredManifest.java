package io.varve.core.internal.version;

import java.util.List;

/** What recovery learned from the manifest. {@code families} is ordered by id and starts with the default. */
public record RecoveredManifest(long lastSequence, long nextFileNumber, long manifestNumber, int nextFamilyId,
                                List<RecoveredFamily> families) {

    /** Logs numbered below this hold nothing that is not in tables, for every family. */
    public long logNumber() {
        return families.stream().mapToLong(RecoveredFamily::logNumber).min().orElse(0);
    }

    /** The default family's tables. */
    public VersionEdit tables() {
        return families.getFirst().tables();
    }

    /**
     * The newest sequence any table can present. Ingested tables carry sequences the logs never saw (their
     * manifest record does not raise the last sequence, which must keep bounding what the logs hold), so
     * the next sequence after recovery must also exceed this.
     */
    public long largestTableSequence() {
        return tableList().stream().mapToLong(TableMeta::effectiveLargestSequence).max().orElse(0);
    }

    /** Every table the manifest lists, for the open-time scan for leftover files. */
    public List<TableMeta> tableList() {
        return families.stream().flatMap(f -> f.tables().added().stream()).map(VersionEdit.Added::table).toList();
    }
}
