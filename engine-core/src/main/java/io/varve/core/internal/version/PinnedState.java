package io.varve.core.internal.version;

import io.varve.base.fs.FileSystem;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Every live column family at one manifest state, as {@link VersionSet#pinState()} took it for a checkpoint:
 * each family's current version is retained until {@link #release()}, so obsolete-table deletion cannot
 * remove a table it lists meanwhile.
 */
public record PinnedState(long lastSequence, long nextFileNumber, int nextFamilyId, List<Family> families) {

    /** One family as a checkpoint copies it. */
    public record Family(int id, String name, long logNumber, Version version) {
    }

    /** Logs numbered below this hold nothing of any family that is not in these tables. */
    public long logNumber() {
        return families.stream().mapToLong(Family::logNumber).min().orElse(0);
    }

    public void release() {
        families.forEach(f -> f.version().release());
    }

    /**
     * Writes in {@code dir} manifest {@code number} describing exactly this state, syncs it, then makes it
     * current (CURRENT is written last, atomically). {@code number} must not be below the state's next file
     * number; the manifest records the number after it as the next file number.
     */
    public void writeManifest(FileSystem fs, Path dir, long number) throws IOException {
        if (number < nextFileNumber) {
            throw new IllegalArgumentException("manifest number " + number + " is below the next file number "
                    + nextFileNumber);
        }
        List<VersionEdit> edits = new ArrayList<>();
        for (Family family : families) {
            VersionEdit edit = new VersionEdit().columnFamily(family.id()).logNumber(family.logNumber());
            if (family.id() == VersionSet.DEFAULT_FAMILY) {
                edit.lastSequence(lastSequence).nextFileNumber(number + 1).nextColumnFamily(nextFamilyId);
            } else {
                edit.addColumnFamily(family.name());
            }
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : family.version().level(level)) {
                    edit.add(level, t);
                }
            }
            edits.add(edit);
        }
        Manifest.create(fs, dir, number, edits).close();
    }
}
