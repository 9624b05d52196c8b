package io.varve.core.internal;

import io.varve.core.internal.version.RecoveredFamily;
import io.varve.core.internal.version.RecoveredManifest;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Opens a database directory for reading only ({@link Db#openReadOnly}): reads the manifest, replays the logs
 * into memtables that stay in memory, and opens every live table — without taking the directory's lock and
 * without creating, changing or deleting any file.
 *
 * <h2>Beside a live writer</h2>
 * A writer may flush, compact or reopen while this runs: it appends an edit to the manifest (a reopen writes
 * a new manifest and points CURRENT at it), then deletes the logs and tables the new state no longer needs.
 * An open that read the manifest before such a change can miss a log deleted before it was listed, or find a
 * table gone when opening it. So once every log is replayed and every table is open, the manifest is read
 * again: if CURRENT names the same one and every family's log number is unchanged, no flush or reopen
 * completed, hence no log the open needed was deleted, and the view is one consistent state (compactions
 * meanwhile only removed tables that were already open). Otherwise the open starts again, up to
 * {@value #ATTEMPTS} times. A failure is retried the same way when CURRENT's manifest or its size changed
 * since the attempt began; when it stood still, the failure is real and reported.
 *
 * <p>Afterwards the writer may delete any file this instance uses: the logs were read whole, and each table
 * was opened (its file held open and mapped) before the check, which is why all of them are opened eagerly —
 * a table opened lazily later could already be gone.
 */
public final class ReadOnlyOpener {

    static final int ATTEMPTS = 20;

    private ReadOnlyOpener() {
    }

    /** CURRENT's manifest and that manifest's length at one moment. */
    private record ManifestState(long number, long size) {

        static ManifestState read(FileSystem fs, Path dir) throws IOException {
            long number = VersionSet.currentManifestNumber(fs, dir);
            if (number < 0) {
                throw new NoSuchFileException(dir.resolve("CURRENT").toString(), null,
                        "cannot open " + dir + " read-only: it holds no database (no CURRENT file)");
            }
            return new ManifestState(number, fs.size(VersionSet.manifestPath(dir, number)));
        }

        /** The state now, or null when reading it failed (a writer replacing the manifest). */
        static ManifestState readOrNull(FileSystem fs, Path dir) {
            try {
                return read(fs, dir);
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }

    public static Db open(Path dir, Options options) throws IOException {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        FileSystem fs = options.fileSystem();
        if (!fs.exists(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "cannot open " + dir
                    + " read-only: no such directory");
        }
        ManifestState.read(fs, dir); // refuses a directory without a database before anything else
        for (int attempt = 1; ; attempt++) {
            // Null when the writer replaced the manifest between reading CURRENT and its size: try again.
            ManifestState before = ManifestState.readOrNull(fs, dir);
            if (before == null && attempt < ATTEMPTS) {
                continue;
            }
            Started started;
            try {
                started = start(dir, fs, options);
            } catch (IOException | RuntimeException e) {
                if (attempt == ATTEMPTS || before.equals(ManifestState.readOrNull(fs, dir))) {
                    throw e;
                }
                options.logger().log(System.Logger.Level.DEBUG, "read-only open of {0}: the manifest changed and {1}; retrying",
                        dir, e.toString());
                continue;
            }
            if (noLogDeletedSince(fs, dir, started.recovered())) {
                return started.db();
            }
            started.db().close();
            options.logger().log(System.Logger.Level.DEBUG, "read-only open of {0}: a flush or reopen meanwhile; retrying", dir);
            if (attempt == ATTEMPTS) {
                throw new IOException("cannot open " + dir + " read-only: a writer flushed or reopened it during "
                        + "each of " + ATTEMPTS + " attempts");
            }
        }
    }

    private record Started(ReadOnlyDb db, RecoveredManifest recovered) {
    }

    /**
     * Whether the manifest CURRENT names is still {@code recovered}'s and still records the same log number
     * for every family: then the writer has deleted no log the open needed (it deletes logs only below a log
     * number it recorded). Compactions and ingestions meanwhile do not matter: every table the open used was
     * already open when this runs, and the tables they add belong to a later state.
     */
    private static boolean noLogDeletedSince(FileSystem fs, Path dir, RecoveredManifest recovered) {
        RecoveredManifest now;
        try {
            now = VersionSet.recover(fs, dir);
        } catch (IOException | RuntimeException writerReplacedIt) {
            return false;
        }
        return now.manifestNumber() == recovered.manifestNumber()
                && logNumbers(now).equals(logNumbers(recovered));
    }

    private static Map<Integer, Long> logNumbers(RecoveredManifest recovered) {
        Map<Integer, Long> numbers = new TreeMap<>();
        for (RecoveredFamily family : recovered.families()) {
            numbers.put(family.id(), family.logNumber());
        }
        return numbers;
    }

    /** One attempt. Whatever it started is closed again, newest first, if it fails. */
    private static Started start(Path dir, FileSystem fs, Options options) throws IOException {
        Deque<AutoCloseable> started = new ArrayDeque<>();
        try {
            BlockCache blockCache = DbOpener.blockCache(options);
            TableCache tables = new TableCache(fs, n -> DbFiles.table(dir, n), blockCache,
                    options.verifyEveryBlockLoad());
            started.push(tables);
            Reclaimer reclaimer = new Reclaimer("varve-reclaimer " + dir);
            started.push(reclaimer);
            RecoveredManifest recovered = VersionSet.recover(fs, dir);
            ManifestCheck.verify(fs, dir, recovered);
            Map<Integer, WalReplay.Family> replayFamilies = new TreeMap<>();
            List<DbRecovery.FamilyInfo> families = new ArrayList<>();
            for (RecoveredFamily rf : recovered.families()) {
                ColumnFamilyOptions familyOptions = rf.id() == VersionSet.DEFAULT_FAMILY
                        ? ColumnFamilyOptions.from(options) : ApiAccess.get().columnFamilyOptions(options, rf.name());
                families.add(new DbRecovery.FamilyInfo(rf.id(), rf.name(), familyOptions));
                replayFamilies.put(rf.id(), new WalReplay.Family(rf.logNumber(), familyOptions.writeBufferSize()));
            }
            WalReplay.Result replayed = WalReplay.readOnly(fs, dir, options, replayFamilies,
                    recovered.lastSequence()).run();
            // An ingested table's sequence is in no log: the view must reach it too.
            long sequence = Math.max(replayed.lastSequence(), recovered.largestTableSequence());
            List<Memtable> empty = new ArrayList<>();
            VersionSet versions;
            try {
                versions = VersionSet.openReadOnly(fs, dir, recovered, id -> {
                    List<Memtable> newestFirst = new ArrayList<>(replayed.memtables().getOrDefault(id, List.of()));
                    if (newestFirst.isEmpty()) {
                        Memtable none = new Memtable(Memtable.MIN_CAPACITY, dir);
                        empty.add(none);
                        newestFirst.add(none);
                    }
                    return newestFirst.reversed();
                }, reclaimer, tables, n -> DbFiles.table(dir, n));
            } finally {
                replayed.releaseAll(); // the views hold them now (or nothing does)
                empty.forEach(Memtable::release);
            }
            started.push(versions);
            openEveryTable(versions, tables);
            return new Started(new ReadOnlyDb(dir, reclaimer, blockCache, tables, versions, families, sequence,
                    replayed.oversizedRecords(), options.logger()),
                    recovered);
        } catch (IOException | RuntimeException e) {
            while (!started.isEmpty()) {
                try {
                    started.pop().close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** Opens (maps) every table of every family; the table cache keeps them open until close. */
    private static void openEveryTable(VersionSet versions, TableCache tables) {
        for (int family : versions.columnFamilies().keySet()) {
            Version current = versions.currentVersion(family);
            try {
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (TableMeta table : current.level(level)) {
                        TableReader reader = tables.acquire(table);
                        reader.release();
                    }
                }
            } finally {
                current.release();
            }
        }
    }
}
