package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/**
 * Opens a database directory: takes its lock, clears leftover temporary files, runs {@link DbRecovery} and starts
 * the {@link DbImpl}. Whatever was started before a failure is closed again, newest first, and the lock
 * released, so a failed open leaves no thread, mapping or file open.
 */
public final class DbOpener {

    private DbOpener() {
    }

    public static Db open(Path dir, Options options) throws IOException {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        FileSystem fs = options.fileSystem();
        fs.createDirectories(dir);
        FileSystem.FileLock lock;
        try {
            lock = fs.lock(dir.resolve(DbFiles.LOCK));
        } catch (IOException e) {
            throw new IOException("cannot open " + dir + ": it is in use by another process or Db instance ("
                    + e.getMessage() + ")", e);
        }
        try {
            for (String name : fs.list(dir)) {
                if (name.endsWith(".tmp")) {
                    fs.delete(dir.resolve(name));
                }
            }
            return start(dir, fs, lock, options);
        } catch (IOException | RuntimeException e) {
            try {
                lock.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The database's view of the shared cache, a cache of its own, or null for none. */
    static BlockCache blockCache(Options options) {
        if (options.blockCache() != null) {
            return ApiAccess.get().blockCacheView(options.blockCache());
        }
        return options.blockCacheSize() > 0 ? new BlockCache(options.blockCacheSize(), 16) : null;
    }

    private static DbImpl start(Path dir, FileSystem fs, FileSystem.FileLock lock, Options options)
            throws IOException {
        Deque<AutoCloseable> started = new ArrayDeque<>();
        try {
            BlockCache blockCache = DbOpener.blockCache(options);
            TableCache tables = new TableCache(fs, n -> DbFiles.table(dir, n), blockCache,
                    options.verifyEveryBlockLoad());
            started.push(tables);
            // The thread's name carries the whole path: the leak detector finds a database's threads by it.
            Reclaimer reclaimer = new Reclaimer("varve-reclaimer " + dir);
            started.push(reclaimer);
            DbRecovery.Result recovered = DbRecovery.run(fs, dir, options, reclaimer, tables);
            started.push(recovered.versions());
            return new DbImpl(dir, fs, lock, options, reclaimer, blockCache, tables, recovered, started);
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
}
