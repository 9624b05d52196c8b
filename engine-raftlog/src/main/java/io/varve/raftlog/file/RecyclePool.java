package io.varve.raftlog.file;

import io.varve.base.fs.FileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Purged append files kept to be written over by new ones, at most {@code capacity} of them. Writing into
 * blocks a file already has does not change its size or block map, so the fdatasync of a synced write has no
 * metadata to commit (docs/raftlog.md, "File recycling").
 *
 * <p>A kept file is renamed {@code <its sequence>.recycle}; recovery ignores its content and {@link QueueWriter}
 * gives it a new header and name when it needs a file. Its old batches are bound to its old sequence number
 * and can never validate under the new one. The purger adds files, the append writer takes them; the two run
 * on different threads, hence the lock. Names change only through the caller's directory syncs: a crash can
 * bring back a file's old name, which is the same as a purge's delete being lost.
 */
public final class RecyclePool {
    private final FileSystem fs;
    private final Path dir;
    private final int capacity;
    private final ArrayDeque<Path> files = new ArrayDeque<>();

    /** A pool holding the recycled files recovery found (extras beyond the capacity are deleted). */
    public RecyclePool(FileSystem fs, Path dir, int capacity, List<String> found) throws IOException {
        this.fs = fs;
        this.dir = dir;
        this.capacity = capacity;
        for (String name : found) {
            Path p = dir.resolve(name);
            if (files.size() < capacity) {
                files.add(p);
            } else {
                fs.delete(p);
            }
        }
    }

    /**
     * Retires a purged append file: keeps it under a recycle name if there is room, else deletes it. The
     * caller syncs the directory.
     */
    public void retire(long fileId) throws IOException {
        Path path = LogFileName.path(dir, fileId);
        synchronized (this) {
            if (files.size() < capacity) {
                Path kept = dir.resolve(LogFileName.recycled(FileId.sequence(fileId)));
                fs.rename(path, kept);
                files.add(kept);
                return;
            }
        }
        fs.delete(path);
    }

    /** A file to write over, removed from the pool, or null if there is none. */
    public synchronized Path take() {
        return files.pollFirst();
    }

    public synchronized int size() {
        return files.size();
    }
}
