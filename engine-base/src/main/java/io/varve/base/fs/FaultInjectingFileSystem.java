package io.varve.base.fs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps a file system and fails its N-th I/O operation with {@link InjectedIOException}, either once or for
 * every operation from then on (a dead disk). Counted operations: create, the opens (for append, overwrite and reading), write, sync, read, map,
 * rename, link, delete, list, directory sync and lock. {@link #operationCount()} after a clean run tells a test
 * how many values of N to try.
 */
public final class FaultInjectingFileSystem extends ForwardingFileSystem {

    /** The failure thrown by an injected fault, so tests can tell it from a real one. */
    public static final class InjectedIOException extends IOException {
        private final String operationName;

        public InjectedIOException(long operation, String operationName) {
            super("injected I/O failure at operation " + operation + " (" + operationName + ")");
            this.operationName = operationName;
        }

        /** The kind of operation that failed: "create", "write", "sync", "delete", ... */
        public String operationName() {
            return operationName;
        }
    }

    private final AtomicLong operations = new AtomicLong();
    private volatile long failAt = Long.MAX_VALUE;
    private volatile boolean failForever;
    private final java.util.concurrent.CopyOnWriteArrayList<String> injected = new java.util.concurrent.CopyOnWriteArrayList<>();

    public FaultInjectingFileSystem(FileSystem delegate) {
        super(delegate);
    }

    /** Fails operation number {@code n} (1-based, counted from now) once, or it and all later ones. */
    public void failAt(long n, boolean forever) {
        if (n < 1) {
            throw new IllegalArgumentException("operation number must be >= 1: " + n);
        }
        this.failForever = forever;
        this.failAt = operations.get() + n;
    }

    /** Stops injecting faults. */
    public void heal() {
        failAt = Long.MAX_VALUE;
        failForever = false;
    }

    public long operationCount() {
        return operations.get();
    }

    /** The names of the operations failed so far, in order. */
    public java.util.List<String> injectedFailures() {
        return java.util.List.copyOf(injected);
    }

    private void tick(String name) throws IOException {
        long n = operations.incrementAndGet();
        long at = failAt;
        if (n == at || (failForever && n > at)) {
            injected.add(name);
            throw new InjectedIOException(n, name);
        }
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        tick("create");
        return new Writable(delegate.create(path));
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        tick("openForAppend");
        return new Writable(delegate.openForAppend(path));
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) throws IOException {
        tick("openForOverwrite");
        return new Writable(delegate.openForOverwrite(path, position));
    }

    @Override
    public ReadableFile openReadable(Path path) throws IOException {
        tick("openReadable");
        return new Readable(delegate.openReadable(path));
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        tick("rename");
        delegate.rename(source, target);
    }

    @Override
    public void link(Path existing, Path link) throws IOException {
        tick("link");
        delegate.link(existing, link);
    }

    @Override
    public void delete(Path path) throws IOException {
        tick("delete");
        delegate.delete(path);
    }



    @Override
    public List<String> list(Path dir) throws IOException {
        tick("list");
        return delegate.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        tick("createDirectories");
        delegate.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        tick("syncDirectory");
        delegate.syncDirectory(dir);
    }

    @Override
    public FileLock lock(Path path) throws IOException {
        tick("lock");
        return delegate.lock(path);
    }

    private final class Writable extends ForwardingWritableFile {

        Writable(WritableFile file) {
            super(file);
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            tick("write");
            delegate.write(source);
        }

        @Override
        public void sync() throws IOException {
            tick("sync");
            delegate.sync();
        }
    }

    private final class Readable implements ReadableFile {
        private final ReadableFile file;

        Readable(ReadableFile file) {
            this.file = file;
        }

        @Override
        public long size() throws IOException {
            return file.size();
        }

        @Override
        public int read(ByteBuffer destination, long position) throws IOException {
            tick("read");
            return file.read(destination, position);
        }

        @Override
        public MemorySegment map(Arena arena) throws IOException {
            tick("map");
            return file.map(arena);
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
