package io.varve.replication;

import io.varve.base.fs.DiskFileSystem;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One member's machine for a crash test: its Raft log and database live in a {@link MemFileSystem}, which
 * {@link #crash()} reduces to what was synced, while reads under {@code diskDir} (jraft's snapshot
 * directory, which jraft writes with {@code java.io} on the real disk) go to the real disk, so the database
 * can ingest a snapshot's tables.
 *
 * <p>A crash also freezes the file system: every later operation fails until {@link #restart()}, so nothing
 * the dying member does after the crash point (its shutdown, a flush on close) reaches storage. Freezing and
 * crashing happen under the monitor the memory file system takes for every operation, and operations check
 * the freeze under it too, so no operation starts after the crash and still succeeds; handles opened before
 * the crash fail on their own ({@link MemFileSystem} retires them).
 */
final class CrashableFileSystem extends ForwardingFileSystem {
    private final MemFileSystem mem;
    private final Path diskDir;
    private boolean frozen;

    CrashableFileSystem(Path diskDir) {
        this(new MemFileSystem(), diskDir);
    }

    private CrashableFileSystem(MemFileSystem mem, Path diskDir) {
        super(mem);
        this.mem = mem;
        this.diskDir = diskDir.toAbsolutePath().normalize();
    }

    /** Drops everything not synced and fails every later operation, as a machine that lost power. */
    void crash() {
        synchronized (mem) {
            frozen = true;
            mem.crash();
        }
    }

    /** Powers the machine on again: what the crash kept is readable and writable. */
    void restart() {
        synchronized (mem) {
            frozen = false;
        }
    }

    private boolean onDisk(Path path) {
        return path.toAbsolutePath().normalize().startsWith(diskDir);
    }

    private void checkRunning() throws IOException {
        if (frozen) {
            throw new IOException("the machine crashed");
        }
    }

    @FunctionalInterface
    private interface Op<T> {
        T run() throws IOException;
    }

    private <T> T guarded(Op<T> op) throws IOException {
        synchronized (mem) {
            checkRunning();
            return op.run();
        }
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return guarded(() -> mem.create(path));
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        return guarded(() -> mem.openForAppend(path));
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) throws IOException {
        return guarded(() -> mem.openForOverwrite(path, position));
    }

    @Override
    public ReadableFile openReadable(Path path) throws IOException {
        if (onDisk(path)) {
            return DiskFileSystem.INSTANCE.openReadable(path);
        }
        return guarded(() -> mem.openReadable(path));
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        guarded(() -> {
            mem.rename(source, target);
            return null;
        });
    }

    @Override
    public void link(Path existing, Path link) throws IOException {
        if (onDisk(existing)) {
            throw new UnsupportedOperationException("no links from the real disk into memory");
        }
        guarded(() -> {
            mem.link(existing, link);
            return null;
        });
    }

    @Override
    public void delete(Path path) throws IOException {
        guarded(() -> {
            mem.delete(path);
            return null;
        });
    }

    @Override
    public boolean exists(Path path) {
        return onDisk(path) ? DiskFileSystem.INSTANCE.exists(path) : mem.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return onDisk(path) ? DiskFileSystem.INSTANCE.size(path) : guarded(() -> mem.size(path));
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        return onDisk(dir) ? DiskFileSystem.INSTANCE.list(dir) : guarded(() -> mem.list(dir));
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        guarded(() -> {
            mem.createDirectories(dir);
            return null;
        });
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        guarded(() -> {
            mem.syncDirectory(dir);
            return null;
        });
    }

    @Override
    public FileLock lock(Path path) throws IOException {
        return guarded(() -> mem.lock(path));
    }
}
