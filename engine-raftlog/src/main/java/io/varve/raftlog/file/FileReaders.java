package io.varve.raftlog.file;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Shared read handles, one per file, opened on first use and reference-counted so purge can retire a file
 * while readers are still using it: a retired handle closes when its last reader releases it, and no new
 * reader gets it. A reader that finds its file retired re-reads the entry's location from the index, which
 * by then points at the rewritten copy.
 */
public final class FileReaders implements AutoCloseable {

    /** A leased handle; give it back with {@link FileReaders#release}. */
    public static final class Handle {
        final long fileId;
        final ReadableFile file;
        int leases;
        boolean retired;

        Handle(long fileId, ReadableFile file) {
            this.fileId = fileId;
            this.file = file;
        }

        public ReadableFile file() {
            return file;
        }
    }

    private final FileSystem fs;
    private final Path dir;
    private final Map<Long, Handle> open = new HashMap<>();
    private boolean closed;

    public FileReaders(FileSystem fs, Path dir) {
        this.fs = fs;
        this.dir = dir;
    }

    public synchronized Handle acquire(long fileId) throws IOException {
        if (closed) {
            throw new IllegalStateException("engine is closed");
        }
        Handle h = open.get(fileId);
        if (h == null) {
            h = new Handle(fileId, fs.openReadable(LogFileName.path(dir, fileId)));
            open.put(fileId, h);
        }
        h.leases++;
        return h;
    }

    public void release(Handle h) {
        boolean close;
        synchronized (this) {
            h.leases--;
            close = h.retired && h.leases == 0;
        }
        if (close) {
            closeQuietly(h);
        }
    }

    /** The file is being deleted: close its handle once unused and never hand it out again. */
    public void retire(long fileId) {
        Handle h;
        synchronized (this) {
            h = open.remove(fileId);
            if (h == null) {
                return;
            }
            h.retired = true;
            if (h.leases > 0) {
                return;
            }
        }
        closeQuietly(h);
    }

    @Override
    public void close() {
        Map<Long, Handle> handles;
        synchronized (this) {
            closed = true;
            handles = new HashMap<>(open);
            open.clear();
        }
        handles.values().forEach(FileReaders::closeQuietly);
    }

    private static void closeQuietly(Handle h) {
        try {
            h.file.close();
        } catch (IOException e) {
            System.getLogger(FileReaders.class.getName()).log(System.Logger.Level.WARNING,
                    "closing " + FileId.toString(h.fileId) + " failed", e);
        }
    }
}
