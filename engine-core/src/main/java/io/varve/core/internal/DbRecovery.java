package io.varve.core.internal;

import io.varve.core.internal.version.RecoveredFamily;
import io.varve.core.internal.version.RecoveredManifest;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Options;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.flush.MemtableFlush;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Brings a directory back to a consistent state at open: reads the manifest, replays the logs newer than each
 * family's log number ({@link WalReplay}), writes what they held to level-0 tables, starts the version set
 * with a fresh manifest and deletes what no longer belongs (older logs, tables the manifest does not list:
 * a crashed flush's or compaction's). Afterwards no log holds anything the tables do not, so the database
 * starts with an empty memtable and a new log.
 */
public final class DbRecovery {

    /** A family recovery found, with the options it runs with. */
    record FamilyInfo(int id, String name, ColumnFamilyOptions options) {
    }

    /**
     * What the database starts from.
     *
     * @param versions         the open version set (owned by the caller from now on)
     * @param lastSequence     the newest sequence any log or table holds
     * @param logNumber        the number of the log to create for new writes
     * @param pipelineFamilies each family's first mutable memtable, for the commit pipeline
     * @param tableCount       tables listed after recovery, for the log line
     * @param oversizedRecords log records found holding an entry too large for a table (not recovered)
     */
    record Result(VersionSet versions, long lastSequence, long logNumber, List<FamilyInfo> families,
                  List<MemtableSet.FamilyMemtable> pipelineFamilies, int tableCount, int oversizedRecords) {
    }

    private DbRecovery() {
    }

    static Result run(FileSystem fs, Path dir, Options options, Reclaimer reclaimer, TableCache tables)
            throws IOException {
        RecoveredManifest recovered = VersionSet.recover(fs, dir);
        ManifestCheck.verify(fs, dir, recovered);
        Map<Integer, WalReplay.Family> replayFamilies = new TreeMap<>();
        Map<Integer, FamilyInfo> families = new TreeMap<>();
        for (RecoveredFamily rf : recovered.families()) {
            ColumnFamilyOptions familyOptions = rf.id() == VersionSet.DEFAULT_FAMILY
                    ? ColumnFamilyOptions.from(options) : ApiAccess.get().columnFamilyOptions(options, rf.name());
            families.put(rf.id(), new FamilyInfo(rf.id(), rf.name(), familyOptions));
            replayFamilies.put(rf.id(), new WalReplay.Family(rf.logNumber(), familyOptions.writeBufferSize()));
        }
        WalReplay.Result replayed = new WalReplay(fs, dir, options, replayFamilies, recovered.lastSequence()).run();
        // An ingested table's sequence is in no log: the sequence must continue past it too.
        long lastSequence = Math.max(replayed.lastSequence(), recovered.largestTableSequence());
        long nextFile = Math.max(recovered.nextFileNumber(), replayed.maxLogNumber() + 1);
        nextFile = Math.max(nextFile, highestFileNumber(fs, dir) + 1);

        // Recovered memtables go straight to level-0 tables, so every old log can be deleted.
        Map<Integer, VersionEdit> openEdits = new TreeMap<>();
        try {
            for (Map.Entry<Integer, List<Memtable>> e : replayed.memtables().entrySet()) {
                VersionEdit edit = new VersionEdit().columnFamily(e.getKey());
                openEdits.put(e.getKey(), edit);
                for (Memtable m : e.getValue()) {
                    long number = nextFile++;
                    TableMeta meta = MemtableFlush.write(fs, DbFiles.table(dir, number), number, m,
                            families.get(e.getKey()).options().tableOptions().forLevel(0));
                    if (meta != null) {
                        edit.add(0, meta);
                    }
                }
            }
        } finally {
            replayed.releaseAll();
        }
        int flushed = openEdits.values().stream().mapToInt(edit -> edit.added().size()).sum();
        if (flushed > 0) {
            fs.syncDirectory(dir);
        }
        long logNumber = nextFile++;
        Map<Integer, Memtable> mutables = new TreeMap<>();
        List<MemtableSet.FamilyMemtable> pipelineFamilies = new ArrayList<>();
        for (Map.Entry<Integer, VersionEdit> e : openEdits.entrySet()) {
            e.getValue().logNumber(logNumber).lastSequence(lastSequence);
            long bufferSize = families.get(e.getKey()).options().writeBufferSize();
            Memtable mutable = new Memtable(MemtableSet.capacity(bufferSize, 0));
            mutables.put(e.getKey(), mutable);
            pipelineFamilies.add(new MemtableSet.FamilyMemtable(e.getKey(), mutable, bufferSize));
        }
        VersionSet versions;
        try {
            versions = VersionSet.open(fs, dir, recovered, List.copyOf(openEdits.values()), mutables, reclaimer,
                    tables, n -> DbFiles.table(dir, n), nextFile);
        } finally {
            mutables.values().forEach(Memtable::release); // the read views hold them now (or nothing does)
        }
        try {
            deleteObsoleteFiles(fs, dir, versions, logNumber);
        } catch (IOException | RuntimeException e) {
            try {
                versions.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return new Result(versions, lastSequence, logNumber, List.copyOf(families.values()), pipelineFamilies,
                recovered.tableList().size() + flushed, replayed.oversizedRecords());
    }

    private static long highestFileNumber(FileSystem fs, Path dir) throws IOException {
        long highest = 0;
        for (String name : fs.list(dir)) {
            for (String suffix : new String[] {DbFiles.LOG_SUFFIX, DbFiles.TABLE_SUFFIX}) {
                OptionalLong n = DbFiles.parseNumber(name, suffix);
                if (n.isPresent()) {
                    highest = Math.max(highest, n.getAsLong());
                }
            }
        }
        return highest;
    }

    /** Deletes logs older than {@code logNumber} and tables the version does not list (a crashed flush's). */
    private static void deleteObsoleteFiles(FileSystem fs, Path dir, VersionSet versions, long logNumber)
            throws IOException {
        Set<Long> live = new HashSet<>();
        for (int family : versions.columnFamilies().keySet()) {
            Version current = versions.currentVersion(family);
            try {
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (TableMeta t : current.level(level)) {
                        live.add(t.fileNumber());
                    }
                }
            } finally {
                current.release();
            }
        }
        boolean deleted = false;
        for (String name : fs.list(dir)) {
            OptionalLong log = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
            OptionalLong table = DbFiles.parseNumber(name, DbFiles.TABLE_SUFFIX);
            if ((log.isPresent() && log.getAsLong() < logNumber)
                    || (table.isPresent() && !live.contains(table.getAsLong()))) {
                fs.delete(dir.resolve(name));
                deleted = true;
            }
        }
        if (deleted) {
            fs.syncDirectory(dir);
        }
    }
}
