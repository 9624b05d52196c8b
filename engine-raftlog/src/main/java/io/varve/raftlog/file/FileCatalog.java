package io.varve.raftlog.file;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The live log files and what purge needs to know about them: size and how many entries were written into
 * each. Writers add and grow files, purge removes them; all methods are synchronized because these events
 * are rare compared to the lock-free read path, which never consults the catalog.
 */
public final class FileCatalog {

    /** A point-in-time copy of one file's accounting. */
    public record FileInfo(long fileId, long bytes, long entriesWritten) {
        public long sequence() {
            return FileId.sequence(fileId);
        }
    }

    private static final class Mutable {
        long bytes;
        long entries;
    }

    private final Map<LogQueue, TreeMap<Long, Mutable>> queues = Map.of(
            LogQueue.APPEND, new TreeMap<>(), LogQueue.REWRITE, new TreeMap<>());

    public synchronized void add(long fileId, long bytes, long entries) {
        Mutable m = new Mutable();
        m.bytes = bytes;
        m.entries = entries;
        queues.get(FileId.queue(fileId)).put(FileId.sequence(fileId), m);
    }

    public synchronized void grow(long fileId, long bytes, long entries) {
        Mutable m = queues.get(FileId.queue(fileId)).get(FileId.sequence(fileId));
        if (m != null) {
            m.bytes += bytes;
            m.entries += entries;
        }
    }

    public synchronized void remove(long fileId) {
        queues.get(FileId.queue(fileId)).remove(FileId.sequence(fileId));
    }

    public synchronized List<FileInfo> files(LogQueue queue) {
        List<FileInfo> out = new ArrayList<>();
        for (Map.Entry<Long, Mutable> e : queues.get(queue).entrySet()) {
            out.add(new FileInfo(FileId.of(queue, e.getKey()), e.getValue().bytes, e.getValue().entries));
        }
        return out;
    }

    public synchronized long totalBytes(LogQueue queue) {
        long total = 0;
        for (Mutable m : queues.get(queue).values()) {
            total += m.bytes;
        }
        return total;
    }

    public synchronized int fileCount(LogQueue queue) {
        return queues.get(queue).size();
    }
}
