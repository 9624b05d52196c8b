package io.varve.core.internal;

import io.varve.core.internal.version.RecoveredFamily;
import io.varve.core.internal.version.RecoveredManifest;
import io.varve.base.CorruptionException;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Refuses to open a directory whose manifest describes an older state than its files, before anything is
 * replayed or deleted.
 *
 * <p>A manifest read back to a clean record boundary looks valid even when it was cut short by damage, and
 * opening on it would silently serve an older state: the tables its lost edits added would be deleted as a
 * crashed flush's leftovers, and the logs that held those writes are already gone. Two facts tell such a
 * manifest from one a crash left behind:
 * <ul>
 *   <li>Every table it lists must exist. Tables are deleted only after an edit that removes them is durable,
 *       so a listed table that is missing means the manifest lost that edit. A listed table of another size
 *       than recorded is itself damaged (tables are synced whole before they are listed), and is refused
 *       here rather than on some later read.</li>
 *   <li>The oldest log any family still needs (the smallest recorded log number) must exist whenever a newer
 *       log or table does. Logs are deleted only below the smallest log number a durable edit recorded, and
 *       the database creates the log it records at open before it creates anything numbered above it; so
 *       the only legitimate reason for that log to be missing is a crash before it was created, when nothing
 *       newer can exist either.</li>
 * </ul>
 * A directory without CURRENT that holds tables is refused too.
 * Tables numbered above the manifest's next file number are not evidence: a flush allocates its number in
 * memory and writes the table before the edit that records it, so a crash leaves such orphans routinely.
 */
public final class ManifestCheck {

    private ManifestCheck() {
    }

    /** Throws {@link CorruptionException} naming the manifest and its end when it is behind the directory. */
    static void verify(FileSystem fs, Path dir, RecoveredManifest recovered) throws IOException {
        if (recovered.manifestNumber() < 0) {
            refuseTablesWithoutCurrent(fs, dir);
            return;
        }
        Path manifest = VersionSet.manifestPath(dir, recovered.manifestNumber());
        long manifestEnd = fs.size(manifest);
        for (RecoveredFamily family : recovered.families()) {
            VersionEdit tables = family.tables();
            for (VersionEdit.Added added : tables.added()) {
                checkTable(fs, dir, manifest, manifestEnd, added.level(), added.table());
            }
        }
        long oldestNeededLog = recovered.logNumber();
        if (oldestNeededLog > 0 && !fs.exists(DbFiles.log(dir, oldestNeededLog))) {
            long newer = newestFileAbove(fs, dir, oldestNeededLog);
            if (newer > 0) {
                throw new CorruptionException(manifest, manifestEnd, "the manifest ends here and needs log "
                        + DbFiles.log(dir, oldestNeededLog).getFileName() + ", which is gone while newer file "
                        + newer + " exists: the manifest has lost edits, and opening it would serve an older state");
            }
        }
    }

    /**
     * A directory without CURRENT is a new database, unless it holds tables: then CURRENT was lost, or a
     * checkpoint or restore stopped before writing it (they write it last), and opening would delete those
     * tables as leftovers. Logs alone are no evidence: a new database replays them, losing nothing.
     */
    private static void refuseTablesWithoutCurrent(FileSystem fs, Path dir) throws IOException {
        if (!fs.exists(dir)) {
            return;
        }
        for (String name : fs.list(dir)) {
            if (name.equals(DbFiles.PARTIAL)) {
                throw new CorruptionException(dir.resolve("CURRENT"), 0, "CURRENT is missing and "
                        + DbFiles.PARTIAL + " is present: a checkpoint into this directory did not finish");
            }
            if (DbFiles.parseNumber(name, DbFiles.TABLE_SUFFIX).isPresent()) {
                throw new CorruptionException(dir.resolve("CURRENT"), 0, "CURRENT is missing but the directory"
                        + " holds table " + name + ": CURRENT was lost, or a checkpoint or restore did not finish");
            }
        }
    }

    private static void checkTable(FileSystem fs, Path dir, Path manifest, long manifestEnd, int level,
                                   TableMeta table) throws IOException {
        Path path = DbFiles.table(dir, table.fileNumber());
        if (!fs.exists(path)) {
            throw new CorruptionException(manifest, manifestEnd, "the manifest lists table " + path.getFileName()
                    + " at level " + level + ", which does not exist: the manifest has lost edits or the table"
                    + " was deleted");
        }
        long size = fs.size(path);
        if (size != table.fileSize()) {
            // The table changed after it was written whole and synced: the table is damaged, not the manifest.
            throw new CorruptionException(path, Math.min(size, table.fileSize()), "table has " + size
                    + " bytes, but " + manifest.getFileName() + " recorded " + table.fileSize());
        }
    }

    /** The highest log or table number above {@code number} in {@code dir}, or 0 if there is none. */
    private static long newestFileAbove(FileSystem fs, Path dir, long number) throws IOException {
        long newest = 0;
        for (String name : fs.list(dir)) {
            for (String suffix : new String[] {DbFiles.LOG_SUFFIX, DbFiles.TABLE_SUFFIX}) {
                OptionalLong n = DbFiles.parseNumber(name, suffix);
                if (n.isPresent() && n.getAsLong() > number) {
                    newest = Math.max(newest, n.getAsLong());
                }
            }
        }
        return newest;
    }
}
