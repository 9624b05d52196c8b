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
 * on different threads, hence the lock. A retired file enters the pool only after its recycle name is
 * durable (the purger syncs the directory in between), so a file is never written over while a crash could
 * still bring back its old name; a crash before that sync is the same as the purge's delete being lost.
 */
public final class RecyclePool {
    private final FileSystem fs;
    private final Path dir;
    private final int capacity;
    private final ArrayDeque<Path> files = new ArrayDeque<>();
    /** Files renamed by {@link #retire} and not yet admitted; they count against the capacity. */
    private int retiring;

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
     * Retires a purged append file: renames it to its recycle name if the pool will have room, else deletes
     * it. Returns the recycle name, or null if the file was deleted. The file does not enter the pool yet:
     * the caller syncs the directory and then calls {@link #admit}. Until that sync a crash may bring back
     * its log-file name, and a writer must not have given it a new header by then, or recovery would find a
     * log file whose header names another sequence.
     */
    public Path retire(long fileId) throws IOException {
        Path path = LogFileName.path(dir, fileId);
        synchronized (this) {
            if (files.size() + retiring < capacity) {
                Path kept = dir.resolve(LogFileName.recycled(FileId.sequence(fileId)));
                fs.rename(path, kept);
                retiring++;
                return kept;
            }
        }
        fs.delete(path);
        return null;
    }

    /** Makes retired files (their recycle names now durable) available to {@link #take}. */
    public synchronized void admit(List<Path> retired) {
        files.addAll(retired);
        retiring -= retired.size();
    }

    /** A file to write over, removed from the pool, or null if there is none. */
    public synchronized Path take() {
        return files.pollFirst();
    }

    public synchronized int size() {
        return files.size();
    }
}
