package io.varve.core.internal.version;

import io.varve.base.CorruptionException;
import io.varve.base.fs.FileSystem;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rebuilds each column family's table set and log number from the manifest's edits, for {@link VersionSet#recover}.
 * Replay works on maps, O(total edits), where applying edit by edit to sorted arrays would be quadratic.
 */
final class ManifestRecovery {

    private ManifestRecovery() {
    }

    /** Replay state of one family. */
    private static final class FamilyReplay {
        final String name;
        long logNumber;
        final List<Map<Long, TableMeta>> levels = new ArrayList<>();

        FamilyReplay(String name) {
            this.name = name;
            for (int i = 0; i < Version.NUM_LEVELS; i++) {
                levels.add(new LinkedHashMap<>());
            }
        }
    }

    /**
     * Reads the current manifest, if any. A directory without CURRENT is a new database. Any damage except a
     * torn last edit is a {@link CorruptionException}.
     */
    static RecoveredManifest recover(FileSystem fs, Path dir) throws IOException {
        long manifestNumber = Manifest.currentNumber(fs, dir);
        TreeMap<Integer, FamilyReplay> families = new TreeMap<>();
        families.put(VersionSet.DEFAULT_FAMILY, new FamilyReplay(VersionSet.DEFAULT_FAMILY_NAME));
        if (manifestNumber < 0) {
            return new RecoveredManifest(0, 1, -1, 1, List.of(new RecoveredFamily(VersionSet.DEFAULT_FAMILY, VersionSet.DEFAULT_FAMILY_NAME, 0,
                    new VersionEdit())));
        }
        List<VersionEdit> edits = Manifest.read(fs, dir, manifestNumber);
        long last = 0;
        long nextFile = manifestNumber + 1;
        int nextFamily = 1;
        Path manifestPath = Manifest.path(dir, manifestNumber);
        for (VersionEdit edit : edits) {
            int id = edit.columnFamily();
            nextFamily = Math.max(nextFamily, Math.max(edit.nextColumnFamily(), id + 1));
            if (edit.addedColumnFamily() != null) {
                if (families.containsKey(id)) {
                    throw new CorruptionException(manifestPath, 0, "edit creates column family " + id
                            + " which already exists");
                }
                families.put(id, new FamilyReplay(edit.addedColumnFamily()));
            }
            FamilyReplay family = families.get(id);
            if (family == null) {
                throw new CorruptionException(manifestPath, 0, "edit for unknown column family " + id);
            }
            last = Math.max(last, edit.lastSequence());
            nextFile = Math.max(nextFile, edit.nextFileNumber());
            if (edit.droppedColumnFamily()) {
                if (id == VersionSet.DEFAULT_FAMILY) {
                    throw new CorruptionException(manifestPath, 0, "edit drops the default column family");
                }
                families.remove(id); // its tables are leftovers now, deleted by the open-time scan
                continue;
            }
            family.logNumber = Math.max(family.logNumber, edit.logNumber());
            for (VersionEdit.Removed r : edit.removed()) {
                if (family.levels.get(r.level()).remove(r.fileNumber()) == null) {
                    throw new CorruptionException(manifestPath, 0, "edit removes table " + r.fileNumber()
                            + " that is not at level " + r.level() + " of column family " + id);
                }
            }
            for (VersionEdit.Added a : edit.added()) {
                family.levels.get(a.level()).put(a.table().fileNumber(), a.table());
                nextFile = Math.max(nextFile, a.table().fileNumber() + 1);
            }
        }
        List<RecoveredFamily> result = new ArrayList<>();
        for (Map.Entry<Integer, FamilyReplay> e : families.entrySet()) {
            VersionEdit all = new VersionEdit().columnFamily(e.getKey());
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : e.getValue().levels.get(level).values()) {
                    all.add(level, t);
                }
            }
            result.add(new RecoveredFamily(e.getKey(), e.getValue().name, e.getValue().logNumber, all));
        }
        return new RecoveredManifest(last, nextFile, manifestNumber, nextFamily, List.copyOf(result));
    }
}
