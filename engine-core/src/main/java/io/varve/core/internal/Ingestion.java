package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.internal.keys.Keys;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.ingest.ExternalTable;
import io.varve.core.internal.ingest.ExternalTables;
import io.varve.core.internal.ingest.ImportThreads;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.ingest.IngestRequiresFlushException;
import io.varve.core.internal.ingest.LevelPlacement;
import io.varve.core.ingest.RangeLatch;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Ingests external tables ({@code Db.ingestExternalFiles}) without stalling writes.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li><b>Files</b>, with no lock: link or copy each file into the directory, sync it and the directory,
 *       check every block and the key order ({@link ExternalTables#importAll}); on the caller's thread, or
 *       on a thread at a lowered CPU priority ({@link ImportThreads}).</li>
 *   <li><b>Memtables</b>: if a memtable of the family holds keys in the files' ranges, flush (a rotation
 *       and a wait for the table write, during which writes go on) or, without
 *       {@link IngestOptions#allowBlockingFlush()}, give up with {@link IngestRequiresFlushException}.</li>
 *   <li><b>Sequence</b>: {@link CommitPipeline#reserveIngest} takes the next number under the log lock — the
 *       only moment writers can wait for an ingestion, and it does no I/O.</li>
 *   <li><b>Ordered check</b> (without {@code allowWrite}): once every earlier write is applied (the
 *       reservation reached the head of the publication queue), check the memtables again, counting only
 *       entries older than the reservation; writes that slipped in after step 2 send it back there.</li>
 *   <li><b>Install</b>: with compaction picks held and under the manifest lock, choose each table's level
 *       ({@link LevelPlacement}), sync the write-ahead log (so no earlier write can be lost while the
 *       tables survive a crash), and log one manifest record adding all of them with the reserved number as
 *       their global sequence; then finish the reservation, which makes it (and any writes held behind it)
 *       visible. A newer table below the chosen level sends the ingestion back to step 3 with a new number.</li>
 * </ol>
 * A crash before the manifest record is synced leaves only unreferenced table files, which the next open
 * deletes; after it, every table is there. Reserved numbers that an attempt abandons are simply never used.
 *
 * <h2>allowWrite</h2>
 * Writes are never held: the reservation is ready at once, and step 4 is skipped. The caller guarantees that
 * nothing writes into the files' ranges during the call; the ingestion holds the database's
 * {@link RangeLatch} over the union of the ranges for steps 2–5 so that cooperating writers wait. What is
 * relaxed, only for the ingested ranges and only during the call: the visible sequence may pass the
 * reserved number before the files are installed, so a snapshot or read taken in that window may see the
 * keys appear later. Snapshots taken before the call never see them; reads after it returns always do.
 */
public final class Ingestion implements AutoCloseable {

    private final System.Logger log;
    /** Each retry follows a flush or a newer table below: only a writer racing into the range repeats them. */
    private static final int MAX_ATTEMPTS = 100;

    private final FileSystem fs;
    private final ImportThreads imports;
    private final ExternalTables.Destination destination;
    private final CommitPipeline pipeline;
    private final VersionSet versions;
    private final CompactionScheduler compactions;
    private final RangeLatch latch;
    private final Runnable flush;
    private final Runnable installed;
    private final Consumer<IOException> failed;

    Ingestion(FileSystem fs, ImportThreads imports, ExternalTables.Destination destination, CommitPipeline pipeline,
              VersionSet versions, CompactionScheduler compactions, RangeLatch latch, Runnable flush,
              Runnable installed, Consumer<IOException> failed, System.Logger log) {
        this.log = log;
        this.fs = fs;
        this.imports = imports;
        this.destination = destination;
        this.pipeline = pipeline;
        this.versions = versions;
        this.compactions = compactions;
        this.latch = latch;
        this.flush = flush;
        this.installed = installed;
        this.failed = failed;
    }

    private enum Outcome { INSTALLED, MEMTABLE_OVERLAP, NEWER_TABLE_BELOW }

    void ingest(int family, String familyName, List<Path> files, IngestOptions options) throws IOException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no files to ingest");
        }
        if (pipeline.unordered() && !options.allowWrite()) {
            throw new UnsupportedOperationException("with unordered writes, ingestion needs allowWrite (and the "
                    + "caller's guarantee that nothing writes into the files' ranges meanwhile)");
        }
        List<ExternalTable> tables = imports.run(() -> ExternalTables.importAll(fs, files, familyName, destination,
                options.moveFiles()));
        boolean keepFiles = false;
        try {
            install(family, tables, options);
            keepFiles = true;
        } catch (KeepTables e) {
            keepFiles = true; // the record is, or may be, on disk: the next open keeps or deletes them
            throw e.toThrow;
        } finally {
            if (!keepFiles) {
                ExternalTables.discard(fs, tables, destination.tablePath());
            }
        }
        installed.run();
        if (options.moveFiles()) {
            for (Path source : files) {
                try {
                    fs.delete(source);
                } catch (IOException e) {
                    log.log(System.Logger.Level.WARNING, "ingested " + source + " but could not remove it", e);
                }
            }
        }
    }

    /** Waits for file work in progress (see {@link ImportThreads#close}). */
    @Override
    public void close() {
        imports.close();
    }

    /** Returns once the tables are installed and visible; throws otherwise (then nothing was installed). */
    private void install(int family, List<ExternalTable> tables, IngestOptions options) {
        byte[] first = tables.getFirst().smallestKey();
        byte[] last = tables.stream().map(ExternalTable::largestKey).max(Keys::compare).orElseThrow();
        try (RangeLatch.Guard ignored = options.allowWrite() ? latch.acquire(first, last) : null) {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                if (inMemtables(family, tables, Long.MAX_VALUE)) {
                    flushFirst(options);
                    continue;
                }
                Outcome outcome = attempt(family, tables, options);
                if (outcome == Outcome.INSTALLED) {
                    return;
                }
                if (outcome == Outcome.MEMTABLE_OVERLAP) {
                    flushFirst(options);
                }
            }
        }
        throw new IllegalStateException("ingestion gave up after " + MAX_ATTEMPTS + " attempts: writes keep landing "
                + "in the files' key ranges; hold the database's RangeLatch over them while ingesting");
    }

    private Outcome attempt(int family, List<ExternalTable> tables, IngestOptions options) {
        if (!pipeline.logging()) {
            // Without a log, the writes acknowledged before this call are durable only once flushed; the
            // manifest record below must not make the tables durable without them.
            flush.run();
        }
        CommitPipeline.IngestReservation reservation = pipeline.reserveIngest(!options.allowWrite());
        Outcome outcome;
        try {
            if (!options.allowWrite()) {
                pipeline.awaitEarlierWrites(reservation);
            }
            if (!options.allowWrite() && inMemtables(family, tables, reservation.sequence)) {
                outcome = Outcome.MEMTABLE_OVERLAP;
            } else {
                // The manifest record makes the tables durable at once; the writes before them (unsynced ones
                // too) must be durable first, or a machine crash could keep the ingestion and lose them: a hole.
                pipeline.syncLog();
                outcome = placeAndLog(family, tables, reservation.sequence);
            }
        } catch (RuntimeException | Error e) {
            // Writes held behind the reservation must be released whatever happened.
            finishQuietly(reservation, e);
            throw e;
        }
        try {
            pipeline.finishIngest(reservation);
        } catch (RuntimeException e) {
            // The manifest lists the tables once the record is synced, failed pipeline or not.
            throw outcome == Outcome.INSTALLED ? new KeepTables(e) : e;
        }
        return outcome;
    }

    private Outcome placeAndLog(int family, List<ExternalTable> tables, long sequence) {
        boolean logged = compactions.withPicksHeld(running -> {
            List<LevelPlacement.BusyRange> busy = new ArrayList<>();
            for (CompactionScheduler.Running r : running) {
                if (r.family() == family) {
                    busy.add(new LevelPlacement.BusyRange(r.outputLevel(), r.smallestKey(), r.largestKey()));
                }
            }
            try {
                return versions.logAndApply(family, version -> {
                    int[] levels = LevelPlacement.place(version, busy, tables, sequence);
                    if (levels == null) {
                        return null;
                    }
                    VersionEdit edit = new VersionEdit().columnFamily(family);
                    for (int i = 0; i < levels.length; i++) {
                        edit.add(levels[i], tables.get(i).toMeta(sequence));
                    }
                    return edit;
                });
            } catch (IOException e) {
                failed.accept(e);
                throw new KeepTables(new UncheckedIOException("ingestion failed writing the manifest; the "
                        + "database now refuses writes, reopen to recover", e));
            }
        });
        return logged ? Outcome.INSTALLED : Outcome.NEWER_TABLE_BELOW;
    }

    private boolean inMemtables(int family, List<ExternalTable> tables, long below) {
        ReadView view = versions.acquire(family);
        try {
            return ExternalTables.anyInMemtables(view.memtablesNewestFirst(), tables, below);
        } finally {
            view.release();
        }
    }

    private void flushFirst(IngestOptions options) {
        if (!options.allowBlockingFlush()) {
            throw new IngestRequiresFlushException("a memtable holds keys in the files' ranges and allowBlockingFlush "
                    + "is off; nothing was ingested — flush and retry");
        }
        flush.run();
    }

    private void finishQuietly(CommitPipeline.IngestReservation reservation, Throwable cause) {
        try {
            pipeline.finishIngest(reservation);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * The ingestion fails with {@code toThrow} after its manifest record was written, or while writing it (then
     * whether it reached the disk is unknown): the imported tables must not be deleted.
     */
    private static final class KeepTables extends RuntimeException {
        final transient RuntimeException toThrow;

        KeepTables(RuntimeException toThrow) {
            super(toThrow);
            this.toThrow = toThrow;
        }
    }
}
