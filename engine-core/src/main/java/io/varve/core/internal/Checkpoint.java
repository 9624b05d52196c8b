package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.version.PinnedState;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Creates a checkpoint: an openable copy of a live database at one point, made of hard links to its tables, a
 * copy of the log tail and a fresh manifest (docs/operations.md, "Checkpoints").
 *
 * <h2>Why the copy is consistent</h2>
 * <ol>
 *   <li>The log is synced, so every write acknowledged before the call is in the log files.</li>
 *   <li>Each log file is opened and its length taken ({@code T1}). Logs are append-only and written in
 *       commit order, so the first {@code length} bytes of every log, oldest first, are a prefix of the
 *       commit order (a record cut at the end is torn, and recovery drops it). An open file survives the
 *       deletion of its name, so a flush finishing later cannot take a log away from under the copy.</li>
 *   <li>Then, under the version set's manifest lock ({@code T2}), every family's current version and log
 *       number are pinned ({@link VersionSet#pinState()}): one manifest state, so one flush's edits for all
 *       families are either all in or all out. Pinned versions keep obsolete-table deletion away from their
 *       tables until the checkpoint is done.</li>
 *   <li>The recovered state is the pinned tables plus the copied logs numbered at or above the pinned log
 *       number. A flush completing between T1 and T2 moved the log number past logs whose writes its tables
 *       hold; its new log was created after T1 and is not copied, so the state is the flush's point, which
 *       is after T1. Otherwise the tables hold only writes before the logs' copied ends. Either way the state
 *       is a prefix of the commit order holding every write acknowledged before the call.</li>
 * </ol>
 * Nothing here takes a lock foreground writes wait for, except the log sync they share.
 *
 * <h2>Crash safety</h2>
 * A marker file ({@link DbFiles#PARTIAL}) is made durable first and CURRENT is written last; a target left
 * without CURRENT holds the marker, which {@link Db#open} refuses ({@link ManifestCheck}), unless it stopped
 * before the marker was durable: then the directory is empty. The source database is only read.
 */
public final class Checkpoint {

    private static final int CHUNK = 1 << 20;

    private final FileSystem fs;
    private final Path source;
    private final VersionSet versions;

    private Checkpoint(FileSystem fs, Path source, VersionSet versions) {
        this.fs = fs;
        this.source = source;
        this.versions = versions;
    }

    /** A log opened at T1 and the length to copy. */
    private record OpenLog(long number, ReadableFile file, long length) {
    }

    static void create(DbImpl db, Path target, boolean flushFirst) throws IOException {
        if (flushFirst) {
            db.flush();
        }
        db.syncWal();
        new Checkpoint(db.fileSystem(), db.dir(), db.versions()).create(target);
    }

    private void create(Path target) throws IOException {
        if (fs.exists(target)) {
            throw new FileAlreadyExistsException(target.toString(), null, "a checkpoint target must not exist");
        }
        List<OpenLog> logs = openLogs();
        try {
            PinnedState state = versions.pinState();
            try {
                fs.createDirectories(target);
                // Until CURRENT exists, this marker makes Db.open refuse the directory instead of opening
                // whatever part of the copy is there as a database.
                try (WritableFile marker = fs.create(target.resolve(DbFiles.PARTIAL))) {
                    marker.sync();
                }
                fs.syncDirectory(target);
                for (PinnedState.Family family : state.families()) {
                    for (int level = 0; level < Version.NUM_LEVELS; level++) {
                        for (TableMeta table : family.version().level(level)) {
                            linkOrCopy(DbFiles.table(source, table.fileNumber()),
                                    DbFiles.table(target, table.fileNumber()));
                        }
                    }
                }
                long oldestNeeded = state.logNumber();
                boolean haveOldest = false;
                for (OpenLog log : logs) {
                    if (log.number() >= oldestNeeded) {
                        copyPrefix(log, DbFiles.log(target, log.number()));
                        haveOldest |= log.number() == oldestNeeded;
                    }
                }
                if (oldestNeeded > 0 && !haveOldest) {
                    // Its writes are all in the pinned tables; an empty log tells recovery nothing is lost.
                    try (WritableFile empty = fs.create(DbFiles.log(target, oldestNeeded))) {
                        empty.sync();
                    }
                }
                fs.syncDirectory(target);
                state.writeManifest(fs, target, state.nextFileNumber());
                fs.delete(target.resolve(DbFiles.PARTIAL));
                fs.syncDirectory(target);
            } finally {
                state.release();
            }
        } finally {
            for (OpenLog log : logs) {
                log.file().close();
            }
        }
    }

    private List<OpenLog> openLogs() throws IOException {
        List<OpenLog> logs = new ArrayList<>();
        try {
            for (String name : fs.list(source)) {
                OptionalLong number = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
                if (number.isEmpty()) {
                    continue;
                }
                ReadableFile file;
                try {
                    file = fs.openReadable(source.resolve(name));
                } catch (NoSuchFileException deleted) {
                    continue; // a flush emptied it: its writes are in tables the pinned state will hold
                }
                logs.add(new OpenLog(number.getAsLong(), file, file.size()));
            }
        } catch (IOException | RuntimeException e) {
            for (OpenLog log : logs) {
                log.file().close();
            }
            throw e;
        }
        logs.sort((a, b) -> Long.compare(a.number(), b.number()));
        return logs;
    }

    private void linkOrCopy(Path from, Path to) throws IOException {
        try {
            fs.link(from, to);
            return;
        } catch (UnsupportedOperationException unsupported) {
            // this file system has no links: copy
        } catch (FileAlreadyExistsException | NoSuchFileException e) {
            throw e;
        } catch (FileSystemException otherDevice) {
            // hard links cannot cross file systems: copy
        }
        try (ReadableFile in = fs.openReadable(from)) {
            copy(in, in.size(), to);
        }
    }

    private void copyPrefix(OpenLog log, Path to) throws IOException {
        copy(log.file(), log.length(), to);
    }

    private void copy(ReadableFile in, long length, Path to) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(length, 1)));
        try (WritableFile out = fs.create(to)) {
            long copied = 0;
            while (copied < length) {
                buffer.clear();
                buffer.limit((int) Math.min(buffer.capacity(), length - copied));
                int n = in.read(buffer, copied);
                if (n < 0) {
                    throw new IOException("file shrank while being copied to " + to);
                }
                buffer.flip();
                out.write(buffer);
                copied += n;
            }
            out.sync();
        }
    }
}
